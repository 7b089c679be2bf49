//! Any bytes into `wire::decode`: it must not panic, and whatever it accepts must
//! re-encode to a frame that decodes to the same value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mrnic_model::wire;

fuzz_target!(|data: &[u8]| {
    if let Ok(f) = wire::decode(data) {
        let b = wire::encode(&f);
        assert_eq!(wire::decode(&b).as_ref(), Ok(&f));
        assert_eq!(b.len(), f.wire_len());
    }
});
