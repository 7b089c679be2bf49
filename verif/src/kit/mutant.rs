//! Mutants: the implementation's source with one deliberate bug. A mutant is a text
//! replacement whose pattern must occur exactly once in the source (so it names one
//! statement, and a change of the source that moves the statement is noticed rather than
//! silently testing the unchanged design); [`check_mutants`] runs the harness on each and
//! fails unless every one is caught.

use super::diff::{Failure, RunReport};
use super::KitError;

/// One deliberate bug: replace `from` (which must occur exactly once) by `to`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mutant {
    pub name: String,
    pub from: String,
    pub to: String,
}

/// Why a mutant check did not pass.
#[derive(Debug, thiserror::Error)]
pub enum MutantError {
    #[error("mutant {name}: its pattern occurs {count} times in the source (must be exactly once): {from:?}")]
    Pattern { name: String, count: usize, from: String },
    #[error("mutant {name} survived: {cycles} cycles ran without a mismatch")]
    Survived { name: String, cycles: u64 },
    #[error("mutant {name}: {source}")]
    Kit { name: String, source: KitError },
    #[error("the source already uses the name {0}, which a mutant schema needs for its selector")]
    SelectorTaken(&'static str),
}

/// A mutant the harness caught.
#[derive(Clone, Debug)]
pub struct Caught {
    pub name: String,
    pub cycle: u64,
    pub headline: String,
}

impl Mutant {
    pub fn new(name: impl Into<String>, from: impl Into<String>, to: impl Into<String>) -> Mutant {
        Mutant { name: name.into(), from: from.into(), to: to.into() }
    }

    /// A block's mutants from its table of (name, pattern, replacement).
    pub fn table(rows: &[(&str, &str, &str)]) -> Vec<Mutant> {
        rows.iter().map(|&(n, f, t)| Mutant::new(n, f, t)).collect()
    }

    /// The source with this mutant applied; the pattern must occur exactly once.
    pub fn apply(&self, source: &str) -> Result<String, MutantError> {
        let count = source.matches(&self.from).count();
        if count != 1 {
            return Err(MutantError::Pattern { name: self.name.clone(), count, from: self.from.clone() });
        }
        Ok(source.replacen(&self.from, &self.to, 1))
    }
}

/// Applies each mutant to `source` and runs `run(mutant, mutated_source)` on it (which builds
/// the mutated device and runs the harness). Every mutant must fail with a mismatch; returns
/// where each was caught, or the first mutant that survived (or could not be applied or built).
pub fn check_mutants(source: &str, mutants: &[Mutant], mut run: impl FnMut(&Mutant, &str) -> Result<RunReport, Failure>) -> Result<Vec<Caught>, MutantError> {
    let mut caught = vec![];
    for m in mutants {
        let bad = m.apply(source)?;
        caught.push(outcome(m, run(m, &bad))?);
    }
    Ok(caught)
}

/// What a mutant's run means: a mismatch catches it; a pass means it survived.
pub fn outcome(m: &Mutant, run: Result<RunReport, Failure>) -> Result<Caught, MutantError> {
    match run {
        Ok(rep) => Err(MutantError::Survived { name: m.name.clone(), cycles: rep.cycles }),
        Err(Failure::Mismatch(x)) => Ok(Caught { name: m.name.clone(), cycle: x.cycle, headline: x.headline.clone() }),
        Err(Failure::Kit(e)) => Err(MutantError::Kit { name: m.name.clone(), source: e }),
    }
}

/// The plusarg that selects one mutant of a [`Schema`] build at run time:
/// `+mrnic_mutant=K` runs mutant K (1-based, [`Schema::guarded`]); 0 or absent runs the
/// original design.
pub const SCHEMA_PLUSARG: &str = "mrnic_mutant";

/// Every mutant of a source in one build (a *mutant schema*): each mutated statement becomes
/// `begin if (mrnic_mutant == K) <mutated>; else <original>; end`, or, for a mutated operand
/// that is not a whole assignment (an `if` condition), `((mrnic_mutant == K) ? (b) : (a))`;
/// each module with a site gets `reg [15:0] mrnic_mutant` set from the plusarg
/// [`SCHEMA_PLUSARG`] in an `initial` block. One Verilator build then serves every mutant
/// instead of one build each, which was most of a mutant sweep's time (the rtx at `core`:
/// 20 builds of ~23 s).
///
/// A mutant that cannot be guarded this way (a declaration such as a `localparam`, or a site
/// overlapping another mutant's but not the same statement) is listed in
/// [`Schema::alone`] and must be built on its own. With the selector at 0 the schema is the
/// original design; the sweep checks that by running it and requiring a pass.
#[derive(Clone, Debug)]
pub struct Schema {
    /// The source with every guarded mutant in it.
    pub source: String,
    /// (index into the mutants, selector value K) for each guarded mutant.
    pub guarded: Vec<(usize, u32)>,
    /// (index into the mutants, why it is not guarded) for each mutant to build alone.
    pub alone: Vec<(usize, String)>,
}

/// A statement `lhs op rhs;` (op `=` or `<=`), as three slices.
fn parse_assignment(stmt: &str) -> Option<(&str, &str, &str)> {
    let b = stmt.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    if b.is_empty() || !(b[0].is_ascii_alphabetic() || b[0] == b'_') {
        return None;
    }
    let mut i = 0;
    while i < b.len() && ident(b[i]) {
        i += 1;
    }
    while i < b.len() && b[i] == b'[' {
        i += stmt[i..].find(']')? + 1;
    }
    let lhs = &stmt[..i];
    while i < b.len() && b[i] == b' ' {
        i += 1;
    }
    let op = if stmt[i..].starts_with("<=") {
        "<="
    } else if stmt[i..].starts_with('=') && !stmt[i..].starts_with("==") {
        "="
    } else {
        return None;
    };
    let rhs = stmt[i + op.len()..].strip_suffix(';')?;
    if rhs.contains(';') || rhs.trim().is_empty() {
        return None;
    }
    Some((lhs, op, rhs))
}

/// True when `e` can stand alone as an operand: non-empty, brackets balanced, no statement
/// punctuation or keywords.
fn expression_like(e: &str) -> bool {
    let mut depth = 0i32;
    for c in e.chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            ';' => return false,
            _ => {}
        }
    }
    let words = e.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'));
    let kw = words.clone().any(|w| matches!(w, "begin" | "end" | "if" | "else" | "case" | "endcase" | "for"));
    let assign = e.replace("==", "").replace("!=", "").replace("<=", "").replace(">=", "").contains('=');
    depth == 0 && !e.trim().is_empty() && !kw && !assign
}

/// True when `e` is one primary: an optional unary operator, then an identifier or a literal
/// with any selects, or one parenthesised group.
fn primary(e: &str) -> bool {
    let e = e.trim().trim_start_matches(['~', '!']);
    if e.starts_with('(') {
        let mut d = 0;
        for (i, c) in e.char_indices() {
            match c {
                '(' => d += 1,
                ')' => {
                    d -= 1;
                    if d == 0 {
                        return i == e.len() - 1;
                    }
                }
                _ => {}
            }
        }
        return false;
    }
    let n = e.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '\'')).unwrap_or(e.len());
    let mut rest = &e[n..];
    while let Some(r) = rest.strip_prefix('[') {
        match r.find(']') {
            Some(j) => rest = &r[j + 1..],
            None => return false,
        }
    }
    n > 0 && rest.is_empty()
}

/// `from` vs `to`: the differing middle, widened to whole tokens, as (start, end in `from`,
/// end in `to`).
fn token_diff(from: &str, to: &str) -> (usize, usize, usize) {
    let (f, t) = (from.as_bytes(), to.as_bytes());
    let tok = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'\'';
    let mut p = 0;
    while p < f.len() && p < t.len() && f[p] == t[p] {
        p += 1;
    }
    while p > 0 && tok(f[p - 1]) && ((p < f.len() && tok(f[p])) || (p < t.len() && tok(t[p]))) {
        p -= 1;
    }
    let mut s = 0;
    while s < f.len() - p && s < t.len() - p && f[f.len() - 1 - s] == t[t.len() - 1 - s] {
        s += 1;
    }
    while s > 0 && tok(f[f.len() - s]) && ((s < f.len() - p && tok(f[f.len() - 1 - s])) || (s < t.len() - p && tok(t[t.len() - 1 - s]))) {
        s -= 1;
    }
    (p, f.len() - s, t.len() - s)
}

/// Words that start a declaration: a statement starting with one cannot be guarded.
const DECLARATIONS: &[&str] = &["localparam", "parameter", "wire", "reg", "input", "output", "inout", "integer", "assign", "module"];

/// True when `t` is a sequence of whole procedural statements: it ends with `;` or `end`,
/// its `begin`s and `end`s and its brackets balance, and it declares nothing.
fn statements(t: &str) -> bool {
    let t = t.trim();
    let words: Vec<&str> = t.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$')).collect();
    let begins = words.iter().filter(|w| **w == "begin").count();
    let ends = words.iter().filter(|w| **w == "end").count();
    let decl = words.first().is_some_and(|w| DECLARATIONS.contains(w) || matches!(*w, "end" | "else"));
    let bal = |o: char, c: char| t.matches(o).count() == t.matches(c).count();
    (t.ends_with(';') || t.ends_with("end")) && begins == ends && bal('(', ')') && bal('[', ']') && bal('{', '}') && !decl && !t.is_empty()
}

/// The innermost parentheses around `[lo, hi)` of `orig`, whose text before `lo` is shared
/// with `mutated` (where the change ends at `hm`): (open paren, its match in `orig`, its
/// match in `mutated`).
fn enclosing_parens(orig: &str, mutated: &str, lo: usize, hi: usize, hm: usize) -> Option<(usize, usize, usize)> {
    let ob = orig.as_bytes();
    let mut depth = 0i32;
    let mut l = lo;
    loop {
        l = l.checked_sub(1)?;
        match ob[l] {
            b')' => depth += 1,
            b'(' if depth == 0 => break,
            b'(' => depth -= 1,
            _ => {}
        }
    }
    let close = |t: &str, from: usize| {
        let mut d = 0i32;
        for (i, c) in t.bytes().enumerate().skip(l + 1) {
            match c {
                b'(' => d += 1,
                b')' if d == 0 => return (i >= from).then_some(i),
                b')' => d -= 1,
                _ => {}
            }
        }
        None
    };
    Some((l, close(orig, hi)?, close(mutated, hm)?))
}

/// Builds the [`Schema`] of `mutants` over `source`. Every pattern must occur exactly once
/// (as for [`Mutant::apply`]), and the source must not already use the selector's name.
pub fn schema(source: &str, mutants: &[Mutant]) -> Result<Schema, MutantError> {
    if source.contains(SCHEMA_PLUSARG) {
        return Err(MutantError::SelectorTaken(SCHEMA_PLUSARG));
    }
    // Guarded assignments (one chain of arms per statement) and the other sites (start, end,
    // replacement text: an operand or a block of statements).
    struct Stmt {
        start: usize,
        end: usize,
        lhs: String,
        op: String,
        orig_rhs: String,
        arms: Vec<(u32, String)>,
    }
    let mut stmts: Vec<Stmt> = vec![];
    let mut edits: Vec<(usize, usize, String)> = vec![];
    let mut guarded = vec![];
    let mut alone = vec![];
    let overlaps = |a: (usize, usize), b: (usize, usize)| a.0 < b.1 && b.0 < a.1;
    let taken = |stmts: &[Stmt], edits: &[(usize, usize, String)], site: (usize, usize)| {
        stmts.iter().any(|s| overlaps((s.start, s.end), site)) || edits.iter().any(|e| overlaps((e.0, e.1), site))
    };
    for (i, m) in mutants.iter().enumerate() {
        let count = source.matches(&m.from).count();
        if count != 1 {
            return Err(MutantError::Pattern { name: m.name.clone(), count, from: m.from.clone() });
        }
        let k = guarded.len() as u32 + 1;
        // Leading white space both sides share is not part of the change.
        let lead = m.from.len() - m.from.trim_start().len();
        let lead = if m.to.starts_with(&m.from[..lead]) { lead } else { 0 };
        let pos = source.find(&m.from).expect("counted once") + lead;
        let m = &Mutant::new(m.name.clone(), &m.from[lead..], &m.to[lead..]);
        // The statement around the pattern: from its line's first non-blank to the first `;`
        // at or after the pattern's end.
        let line = source[..pos].rfind('\n').map_or(0, |n| n + 1);
        let start = line + (source[line..].len() - source[line..].trim_start().len());
        let tail = pos + m.from.len().max(1) - 1;
        let end = source[tail..].find(';').map(|n| tail + n + 1);
        // The statement as it is and as the mutant makes it.
        let region = end.filter(|_| start <= pos).map(|end| (end, &source[start..end], format!("{}{}{}", &source[start..pos], m.to, &source[pos + m.from.len()..end])));
        let as_stmt = region.as_ref().and_then(|(end, orig, mutated)| {
            let (l0, o0, r0) = parse_assignment(orig)?;
            let (l1, o1, r1) = parse_assignment(mutated)?;
            (l0 == l1 && o0 == o1).then(|| (*end, l0.to_string(), o0.to_string(), r0.to_string(), r1.to_string()))
        });
        if let Some((end, lhs, op, r0, r1)) = as_stmt {
            if let Some(st) = stmts.iter_mut().find(|s| s.start == start && s.end == end) {
                st.arms.push((k, r1));
            } else if taken(&stmts, &edits, (start, end)) {
                alone.push((i, "its statement overlaps another mutant's site".to_string()));
                continue;
            } else {
                stmts.push(Stmt { start, end, lhs, op, orig_rhs: r0, arms: vec![(k, r1)] });
            }
            guarded.push((i, k));
            continue;
        }
        let first = source[start..].split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).next().unwrap_or("");
        if DECLARATIONS.contains(&first) {
            alone.push((i, format!("a declaration ({first}) cannot depend on a run-time selector")));
            continue;
        }
        // Whole statements (from a line's start to a `;` or an `end`, begins and ends
        // balanced) in and out: guard them as a block.
        if source[line..pos].trim().is_empty() && statements(&m.from) && statements(&m.to) {
            let site = (line, pos + m.from.len());
            if taken(&stmts, &edits, site) {
                alone.push((i, "its statements overlap another mutant's site".to_string()));
            } else {
                let ind = &source[line..pos];
                let t = format!("{ind}if ({SCHEMA_PLUSARG} == 16'd{k}) begin\n{}\n{ind}end else begin\n{}\n{ind}end", m.to, m.from);
                edits.push((site.0, site.1, t));
                guarded.push((i, k));
            }
            continue;
        }
        let (a0, a1, b1) = token_diff(&m.from, &m.to);
        let (mut a, mut b) = (m.from[a0..a1].to_string(), m.to[a0..b1].to_string());
        let mut site = (pos + a0, pos + a1);
        // A change that is not an operand where it stands (an operand dropped from a
        // condition, a sum whose neighbours bind tighter, a primary with a select after it):
        // widen it to the innermost parentheses around it, as often as needed.
        let fits = |a: &str, b: &str, site: (usize, usize)| {
            let next = source[site.1..].trim_start().chars().next();
            let prev = source[..site.0].trim_end();
            let bounded = (prev.ends_with(['(', ',', '{', '?', ':']) || (prev.ends_with('=') && !["==", "<=", ">=", "!="].iter().any(|o| prev.ends_with(o))))
                && matches!(next, Some(')' | ',' | '}' | ';' | ':' | '?'));
            expression_like(a) && expression_like(b) && next != Some('[') && ((primary(a) && primary(b)) || bounded)
        };
        if let Some((_, orig, mutated)) = &region {
            let (mut lo, mut hi, mut hm) = (pos - start + a0, pos - start + a1, pos - start + b1);
            while !fits(&a, &b, site) {
                let Some((l, r, rm)) = enclosing_parens(orig, mutated, lo, hi, hm) else { break };
                (lo, hi, hm) = (l + 1, r, rm);
                (a, b) = (orig[lo..hi].to_string(), mutated[lo..hm].to_string());
                site = (start + lo, start + hi);
            }
        }
        if !fits(&a, &b, site) {
            alone.push((i, format!("not an assignment and the change {a:?} -> {b:?} is not an operand where it stands")));
            continue;
        }
        if taken(&stmts, &edits, site) {
            alone.push((i, "its operand overlaps another mutant's site".to_string()));
        } else {
            edits.push((site.0, site.1, format!("(({SCHEMA_PLUSARG} == 16'd{k}) ? ({b}) : ({a}))")));
            guarded.push((i, k));
        }
    }
    for s in &stmts {
        let mut t = String::from("begin ");
        for (k, r) in &s.arms {
            t += &format!("if ({SCHEMA_PLUSARG} == 16'd{k}) {} {}{}; else ", s.lhs, s.op, r);
        }
        t += &format!("{} {}{}; end", s.lhs, s.op, s.orig_rhs);
        edits.push((s.start, s.end, t));
    }
    // Every module holding a site declares the selector after its header.
    let mut headers: Vec<usize> = vec![];
    for e in &edits {
        let m = source[..e.0].rfind("module ").unwrap_or(0);
        let hdr = source[m..].find(");").map(|n| m + n + 2).unwrap_or(m);
        let eol = source[hdr..].find('\n').map_or(source.len(), |n| hdr + n + 1);
        if !headers.contains(&eol) {
            headers.push(eol);
        }
    }
    let decl = format!(
        "    // mutant schema: +{p}=K selects mutant K, 0 or absent the original design\n    reg [15:0] {p};\n    initial begin\n        if (!$value$plusargs(\"{p}=%d\", {p})) {p} = 16'd0;\n    end\n",
        p = SCHEMA_PLUSARG
    );
    for h in headers {
        edits.push((h, h, decl.clone()));
    }
    edits.sort_by_key(|e| std::cmp::Reverse((e.0, e.1)));
    let mut out = source.to_string();
    for (s, e, t) in edits {
        out.replace_range(s..e, &t);
    }
    Ok(Schema { source: out, guarded, alone })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mutant_applies_only_when_its_pattern_occurs_exactly_once() {
        let m = Mutant::new("flip", "a = b;", "a = ~b;");
        assert_eq!(m.apply("x; a = b; y;").unwrap(), "x; a = ~b; y;");
        assert!(matches!(m.apply("a = b; a = b;"), Err(MutantError::Pattern { count: 2, .. })));
        let e = m.apply("nothing").unwrap_err();
        assert!(e.to_string().contains("occurs 0 times"), "{e}");
    }

    const SRC: &str = "module m(a,b,c,y,z);\n    input a;\n    always @(*) begin\n        y = a & b;\n        if (c) begin\n            z = b;\n        end\n    end\n    localparam  k = 4'h1;\nendmodule\n";

    #[test]
    fn a_schema_guards_an_assignment_with_its_selector_and_keeps_the_original_in_the_else_arm() {
        let m = [Mutant::new("and_to_or", "y = a & b;", "y = a | b;")];
        let s = schema(SRC, &m).unwrap();
        assert_eq!(s.guarded, vec![(0, 1)]);
        assert!(s.alone.is_empty());
        assert!(s.source.contains("begin if (mrnic_mutant == 16'd1) y = a | b; else y = a & b; end"), "{}", s.source);
        assert!(s.source.contains("$value$plusargs(\"mrnic_mutant=%d\", mrnic_mutant)"), "{}", s.source);
        assert_eq!(s.source.matches("reg [15:0] mrnic_mutant;").count(), 1);
    }

    #[test]
    fn two_mutants_of_one_statement_share_one_chain_and_a_partial_pattern_takes_the_whole_statement() {
        let m = [Mutant::new("drop_b", "y = a & b", "y = a"), Mutant::new("not_a", "a & b;", "~a & b;")];
        let s = schema(SRC, &m).unwrap();
        assert_eq!(s.guarded, vec![(0, 1), (1, 2)]);
        assert!(s.source.contains("begin if (mrnic_mutant == 16'd1) y = a; else if (mrnic_mutant == 16'd2) y = ~a & b; else y = a & b; end"), "{}", s.source);
    }

    #[test]
    fn an_if_condition_becomes_a_guarded_operand_and_a_localparam_is_built_alone() {
        let m = [Mutant::new("never", "if (c) begin\n            z", "if (1'b0) begin\n            z"), Mutant::new("k2", "localparam  k = 4'h1;", "localparam  k = 4'h2;")];
        let s = schema(SRC, &m).unwrap();
        assert_eq!(s.guarded, vec![(0, 1)]);
        assert!(s.source.contains("if (((mrnic_mutant == 16'd1) ? (1'b0) : (c))) begin"), "{}", s.source);
        assert_eq!(s.alone.len(), 1);
        assert_eq!(s.alone[0].0, 1);
        assert!(s.source.contains("localparam  k = 4'h1;"));
    }

    #[test]
    fn an_operand_dropped_from_a_condition_guards_the_whole_condition() {
        let src = "module m(a,b,y);\n    always @(*) begin\n        if (a & b) begin\n            y = 1'b1;\n        end\n    end\nendmodule\n";
        let s = schema(src, &[Mutant::new("drop_b", "if (a & b) begin", "if (a) begin")]).unwrap();
        assert_eq!(s.guarded, vec![(0, 1)]);
        assert!(s.source.contains("if (((mrnic_mutant == 16'd1) ? (a) : (a & b))) begin"), "{}", s.source);
    }

    #[test]
    fn a_run_of_whole_statements_is_guarded_as_a_block() {
        let src = "module m(a,b,y);\n    always @(*) begin\n        y = a;\n        if (b) begin\n            y = b;\n        end\n    end\nendmodule\n";
        let s = schema(src, &[Mutant::new("zero", "y = a;\n        if (b) begin\n            y = b;\n        end", "y = 1'b0;")]).unwrap();
        assert_eq!(s.guarded, vec![(0, 1)]);
        assert!(s.source.contains("        if (mrnic_mutant == 16'd1) begin\ny = 1'b0;\n        end else begin\ny = a;\n        if (b) begin\n            y = b;\n        end\n        end"), "{}", s.source);
    }

    #[test]
    fn an_operand_is_widened_when_a_select_follows_it_or_its_neighbours_bind_tighter() {
        let src = "module m(a,b,c,y);\n    always @(*) begin\n        if ((a | b[3]) & c[3]) begin\n            y = 1'b1;\n        end\n        if (x * a + b) begin\n            y = 1'b0;\n        end\n    end\nendmodule\n";
        let ms = [Mutant::new("drop_c", "if ((a | b[3]) & c[3]) begin", "if (a | b[3]) begin"), Mutant::new("sum", "if (x * a + b) begin", "if (x * c + d) begin")];
        let s = schema(src, &ms).unwrap();
        assert_eq!(s.guarded, vec![(0, 1), (1, 2)]);
        assert!(s.source.contains("if (((mrnic_mutant == 16'd1) ? (a | b[3]) : ((a | b[3]) & c[3]))) begin"), "{}", s.source);
        assert!(s.source.contains("if (((mrnic_mutant == 16'd2) ? (x * c + d) : (x * a + b))) begin"), "{}", s.source);
        assert!(primary("~r_q[7]") && primary("(a + b)") && primary("8'h1") && !primary("a + b") && !primary("(a) + (b)"));
    }

    #[test]
    fn a_token_is_never_split_by_the_operand_diff() {
        // i5_c vs i4_c differ in one character: the operand is the whole identifier.
        let (a0, a1, b1) = token_diff("x = i5_c$q;", "x = i4_c$q;");
        assert_eq!((&"x = i5_c$q;"[a0..a1], &"x = i4_c$q;"[a0..b1]), ("i5_c$q", "i4_c$q"));
    }

    #[test]
    fn a_schema_refuses_a_pattern_that_is_not_unique() {
        let m = [Mutant::new("dup", "a", "b")];
        assert!(matches!(schema(SRC, &m), Err(MutantError::Pattern { .. })));
        let taken = SRC.replace("input a;", "input mrnic_mutant;");
        assert!(matches!(schema(&taken, &[]), Err(MutantError::SelectorTaken(_))));
    }

    #[test]
    fn a_surviving_mutant_fails_the_check() {
        let m = [Mutant::new("flip", "a", "b")];
        let r = check_mutants("a", &m, |_, _| Ok(RunReport { cycles: 10, ..Default::default() }));
        assert!(matches!(r, Err(MutantError::Survived { cycles: 10, .. })));
    }
}
