//! Top module detection. Verilator needs `--top-module`; rust-hdl calls its top `top`, mrnic's
//! blocks are `mrnic_<block>`, and `mrnic verify --verilog FILE` takes anyone's Verilog. A small
//! tokenizer (comments, strings, numbers, directives and `` `define `` bodies skipped) lists the
//! modules a source defines and, inside each, the defined modules it instantiates (`name inst (`
//! or `name #(`). The top is the one module nobody instantiates; none or several is an error that
//! names the candidates, so the caller can say `--top`.

use super::BridgeError;

/// One Verilog token, as far as finding modules and instantiations needs.
#[derive(Debug, PartialEq)]
enum Tok<'a> {
    Ident(&'a str),
    Punct(u8),
    Other,
}

/// Split Verilog source into identifiers and punctuation, skipping comments, strings, numbers,
/// system names (`$display`), compiler directives and `` `define `` bodies.
fn verilog_tokens(src: &str) -> Vec<Tok<'_>> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let ident_char = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                i += 1;
            }
            i += 2;
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(Tok::Other);
        } else if c == b'`' {
            let s = i + 1;
            i += 1;
            while i < b.len() && ident_char(b[i]) {
                i += 1;
            }
            if &src[s..i] == "define" {
                // Skip the macro body, with its backslash continuations.
                while i < b.len() && !(b[i] == b'\n' && b[i - 1] != b'\\') {
                    i += 1;
                }
            }
            out.push(Tok::Other);
        } else if c == b'\\' {
            // Escaped identifier: up to the next white space.
            let s = i + 1;
            while i < b.len() && !b[i].is_ascii_whitespace() {
                i += 1;
            }
            out.push(Tok::Ident(&src[s..i]));
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < b.len() && ident_char(b[i]) {
                i += 1;
            }
            out.push(Tok::Ident(&src[s..i]));
        } else if c.is_ascii_digit() || c == b'\'' || c == b'$' {
            // Numbers (32'h1f, 'b0, 1_000), system names ($display).
            i += 1;
            while i < b.len() && (ident_char(b[i]) || b[i] == b'\'' || b[i] == b'?') {
                i += 1;
            }
            out.push(Tok::Other);
        } else {
            out.push(Tok::Punct(c));
            i += 1;
        }
    }
    out
}

/// The modules a Verilog source defines, in order, each with the modules it instantiates
/// (names of defined modules only).
pub fn verilog_modules(src: &str) -> Vec<(String, Vec<String>)> {
    let toks = verilog_tokens(src);
    let mut mods: Vec<(String, Vec<&str>)> = Vec::new();
    let mut inside = false;
    let mut i = 0;
    while i < toks.len() {
        match toks[i] {
            Tok::Ident("module") | Tok::Ident("macromodule") => {
                if let Some(Tok::Ident(n)) = toks.get(i + 1) {
                    mods.push((n.to_string(), Vec::new()));
                    inside = true;
                    i += 1;
                }
            }
            Tok::Ident("endmodule") => inside = false,
            // `name #(...) inst (...)` or `name inst (...)`: a possible instantiation.
            Tok::Ident(n) if inside => {
                if matches!(toks.get(i + 1), Some(Tok::Punct(b'#')) | Some(Tok::Ident(_))) {
                    mods.last_mut().expect("inside a module").1.push(n);
                }
            }
            _ => {}
        }
        i += 1;
    }
    let names: std::collections::HashSet<String> = mods.iter().map(|m| m.0.clone()).collect();
    mods.into_iter()
        .map(|(n, used)| {
            let mut inst: Vec<String> = Vec::new();
            for u in used {
                if names.contains(u) && u != n && !inst.iter().any(|x| x == u) {
                    inst.push(u.to_string());
                }
            }
            (n, inst)
        })
        .collect()
}

/// The top module of a Verilog source: the one module no other module instantiates.
/// With `wanted`, checks that the source defines it.
pub fn find_top(src: &str, wanted: Option<&str>) -> Result<String, BridgeError> {
    let mods = verilog_modules(src);
    let names: Vec<String> = mods.iter().map(|m| m.0.clone()).collect();
    if let Some(w) = wanted {
        return if names.iter().any(|n| n == w) {
            Ok(w.to_string())
        } else {
            Err(BridgeError::Top(format!(
                "the Verilog defines no module named {w:?}; it defines: {}",
                if names.is_empty() { "no module at all".to_string() } else { names.join(", ") }
            )))
        };
    }
    let tops: Vec<&String> = names
        .iter()
        .filter(|n| !mods.iter().any(|m| m.1.iter().any(|i| i == *n)))
        .collect();
    match tops.as_slice() {
        [one] => Ok((*one).clone()),
        [] if names.is_empty() => Err(BridgeError::Top(
            "the Verilog defines no module".into(),
        )),
        [] => Err(BridgeError::Top(format!(
            "every module is instantiated by another (a cycle?): {}; name the top with BuildOpts::top",
            names.join(", ")
        ))),
        many => Err(BridgeError::Top(format!(
            "{} modules are not instantiated by any other, so the top is ambiguous: {}; name it with BuildOpts::top (--top)",
            many.len(),
            many.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_LEVEL: &str = "// module fake(a);\n/* module fake2 */\nmodule mrnic_x$r(input clock, input [7:0] d, output reg [7:0] q);\ninitial begin q = 8'h0; end\nalways @(posedge clock) q <= d;\nendmodule\n\nmodule mrnic_x(clock, d, q);\n  input wire clock; input wire [7:0] d; output wire [7:0] q;\n  wire [7:0] r$q;\n  assign q = r$q;\n  mrnic_x$r r(.clock(clock), .d(d), .q(r$q));\n  initial $display(\"module nope(\");\nendmodule\n";

    #[test]
    fn top_is_the_module_nobody_instantiates() {
        let m = verilog_modules(TWO_LEVEL);
        assert_eq!(
            m,
            vec![
                ("mrnic_x$r".to_string(), vec![]),
                ("mrnic_x".to_string(), vec!["mrnic_x$r".to_string()])
            ]
        );
        assert_eq!(find_top(TWO_LEVEL, None).unwrap(), "mrnic_x");
        assert_eq!(find_top(TWO_LEVEL, Some("mrnic_x$r")).unwrap(), "mrnic_x$r");
        // Parameterised instantiation counts too.
        let p = "module a; b #(.W(3)) u(); endmodule module b; endmodule";
        assert_eq!(find_top(p, None).unwrap(), "a");
    }

    #[test]
    fn top_errors_name_the_candidates() {
        let two = "module a(x); input x; endmodule\nmodule b(y); input y; endmodule\n";
        let e = find_top(two, None).unwrap_err().to_string();
        assert!(e.contains("top is ambiguous: a, b"), "{e}");
        let e = find_top(two, Some("c")).unwrap_err().to_string();
        assert!(e.contains("no module named \"c\"; it defines: a, b"), "{e}");
        let e = find_top("wire x;", None).unwrap_err().to_string();
        assert!(e.contains("defines no module"), "{e}");
    }
}
