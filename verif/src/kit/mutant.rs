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
        match run(m, &bad) {
            Ok(rep) => return Err(MutantError::Survived { name: m.name.clone(), cycles: rep.cycles }),
            Err(Failure::Mismatch(x)) => caught.push(Caught { name: m.name.clone(), cycle: x.cycle, headline: x.headline.clone() }),
            Err(Failure::Kit(e)) => return Err(MutantError::Kit { name: m.name.clone(), source: e }),
        }
    }
    Ok(caught)
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

    #[test]
    fn a_surviving_mutant_fails_the_check() {
        let m = [Mutant::new("flip", "a", "b")];
        let r = check_mutants("a", &m, |_, _| Ok(RunReport { cycles: 10, ..Default::default() }));
        assert!(matches!(r, Err(MutantError::Survived { cycles: 10, .. })));
    }
}
