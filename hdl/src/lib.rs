pub use rust_hdl;
