//! Verilog generation with a chosen top-module name.
//!
//! rust-hdl 0.46's `generate_verilog` runs `check_all` and then walks the design with a
//! `ModuleDefines` probe from a scope it calls `"top"`, so every design's top module is `top`
//! and its submodules `top$<field>`. [`generate`] does the same walk from a scope named after
//! the block (`mrnic_sack`): the top module is `mrnic_sack`, its submodules `mrnic_sack$<field>`,
//! so several blocks can live in one design. Unlike rust-hdl's, it returns an error instead of
//! panicking when the design does not pass `check_all`.

use rust_hdl::core::check_error::CheckError;
use rust_hdl::prelude::{check_all, Block, ModuleDefines};

/// Why Verilog could not be generated.
#[derive(Debug, thiserror::Error)]
pub enum VerilogError {
    /// The module name is not a plain Verilog identifier.
    #[error("module name {module:?} is not a Verilog identifier: {reason}")]
    BadModuleName { module: String, reason: &'static str },
    /// rust-hdl's `check_all` refused the design (open signals, logic loops, writes to inputs).
    #[error("rust-hdl check of module {module:?} failed: {check:?}")]
    Check { module: String, check: CheckError },
}

/// Longest module name accepted (well under every tool's identifier limit).
pub const MAX_MODULE_NAME: usize = 64;

/// Checks that `name` is `[A-Za-z_][A-Za-z0-9_]*`, at most [`MAX_MODULE_NAME`] bytes.
pub fn check_module_name(name: &str) -> Result<(), VerilogError> {
    let bad = |reason| Err(VerilogError::BadModuleName { module: name.to_owned(), reason });
    let mut chars = name.chars();
    match chars.next() {
        None => return bad("it is empty"),
        Some(c) if !(c.is_ascii_alphabetic() || c == '_') => return bad("it must start with a letter or '_'"),
        _ => {}
    }
    if !chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return bad("only ASCII letters, digits and '_' are allowed");
    }
    if name.len() > MAX_MODULE_NAME {
        return bad("it is longer than 64 characters");
    }
    Ok(())
}

/// The Verilog of `uut` with its top module named `module` and its submodules
/// `module$<field>` (rust-hdl's `generate_verilog` with `module` in place of `top`).
/// `uut` must be connected (`connect_all`) as for `generate_verilog`.
pub fn generate<U: Block>(uut: &U, module: &str) -> Result<String, VerilogError> {
    check_module_name(module)?;
    check_all(uut).map_err(|check| VerilogError::Check { module: module.to_owned(), check })?;
    let mut defines = ModuleDefines::default();
    uut.accept(module, &mut defines);
    Ok(defines.defines())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_hdl::prelude::*;

    #[derive(LogicBlock, Default)]
    struct Inner {
        clock: Signal<In, Clock>,
        d: Signal<In, Bits<4>>,
        q: Signal<Out, Bits<4>>,
        r: DFF<Bits<4>>,
    }
    impl Logic for Inner {
        #[hdl_gen]
        fn update(&mut self) {
            dff_setup!(self, clock, r);
            self.r.d.next = self.d.val();
            self.q.next = self.r.q.val();
        }
    }

    #[derive(LogicBlock, Default)]
    struct Outer {
        clock: Signal<In, Clock>,
        a: Signal<In, Bits<4>>,
        y: Signal<Out, Bits<4>>,
        stage: Inner,
    }
    impl Logic for Outer {
        #[hdl_gen]
        fn update(&mut self) {
            self.stage.clock.next = self.clock.val();
            self.stage.d.next = self.a.val();
            self.y.next = self.stage.q.val();
        }
    }

    fn is_word(v: &str, word: &str) -> bool {
        v.match_indices(word).any(|(i, _)| {
            let before = v[..i].chars().next_back();
            let after = v[i + word.len()..].chars().next();
            let ident = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
            !ident(before) && !ident(after)
        })
    }

    #[test]
    fn the_top_and_its_submodules_are_named_after_the_block_and_top_appears_nowhere() {
        let mut uut = Outer::default();
        uut.connect_all();
        let v = generate(&uut, "mrnic_demo").unwrap();
        assert!(v.contains("module mrnic_demo("), "{v}");
        assert!(v.contains("module mrnic_demo$stage("), "{v}");
        assert!(v.contains("module mrnic_demo$stage$r("), "{v}");
        assert!(!v.contains("top$"), "{v}");
        assert!(!is_word(&v, "top"), "{v}");
        // Same text as rust-hdl's generator apart from the name.
        assert_eq!(v.replace("mrnic_demo", "top"), generate_verilog(&uut));
    }

    #[test]
    fn bad_module_names_are_refused_with_the_reason() {
        let mut uut = Outer::default();
        uut.connect_all();
        for (name, why) in [
            ("", "empty"),
            ("9lives", "start with a letter"),
            ("a b", "only ASCII"),
            ("x;\nmodule evil", "only ASCII"),
            ("a$b", "only ASCII"),
        ] {
            let e = generate(&uut, name).unwrap_err().to_string();
            assert!(e.contains(why), "{name:?}: {e}");
        }
        let long = "m".repeat(MAX_MODULE_NAME + 1);
        assert!(generate(&uut, &long).unwrap_err().to_string().contains("longer than 64"));
        assert!(generate(&uut, &"m".repeat(MAX_MODULE_NAME)).is_ok());
    }

    #[test]
    fn an_unconnected_design_is_an_error_not_a_panic() {
        let uut = Outer::default(); // no connect_all: inputs are open
        let e = generate(&uut, "mrnic_demo").unwrap_err();
        assert!(matches!(e, VerilogError::Check { .. }), "{e}");
    }
}
