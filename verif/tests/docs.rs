//! The block pages' figures come from the code: each `docs/blocks/<block>.md` has a
//! "Figures" table (inputs, outputs, latency, mutants) that this test reads and compares with
//! the generated block and the kit's mutant list, so the page cannot drift from the code.

use mrnic_hdl::ports::PortDir;
use mrnic_model::Config;

/// The value of `| <name> | <value> |` in the page's Figures table.
fn figure(page: &str, name: &str) -> u64 {
    let section = &page[page.find("### Figures").expect("the page has a Figures section")..];
    for line in section.lines().take_while(|l| !l.starts_with("### Testplan")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() >= 3 && cells[1] == name {
            return cells[2].parse().unwrap_or_else(|e| panic!("figure {name:?}: {:?}: {e}", cells[2]));
        }
    }
    panic!("the Figures table has no row {name:?}")
}

/// Checks `docs/blocks/<block>.md`'s Figures table against block `block` generated at
/// `preset` and its kit mutants: every mutant is named on the page in backquotes (or, with
/// `spelled_out`, also accepted written with spaces, as the SACK page's prose does).
fn check_page(block: &str, preset: &str, spelled_out: bool) {
    let page = std::fs::read_to_string(format!("{}/../docs/blocks/{block}.md", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let g = mrnic_hdl::tops::block(&Config::preset(preset).unwrap(), block).unwrap();
    let inputs = g.ports.iter().filter(|p| p.dir == PortDir::In && p.name != "clock").count() as u64;
    let outputs = g.ports.iter().filter(|p| p.dir == PortDir::Out).count() as u64;
    assert_eq!(figure(&page, "inputs (without the clock)"), inputs, "{block}");
    assert_eq!(figure(&page, "outputs"), outputs, "{block}");
    assert_eq!(figure(&page, "latency (cycles)"), g.latency as u64, "{block}");
    let mutants = (mrnic_verif::blocks::block(block).unwrap().mutants)();
    assert_eq!(figure(&page, "mutants"), mutants.len() as u64, "{block}");
    for m in mutants {
        let named = page.contains(&format!("`{}`", m.name)) || (spelled_out && page.contains(&m.name.replace('_', " ")));
        assert!(named, "{block}: mutant {} is not on the page", m.name);
    }
}

#[test]
fn the_sack_page_figures_match_the_generated_block_and_the_mutant_list() {
    check_page("sack", "default", true);
}

#[test]
fn the_parser_page_figures_match_the_generated_block_and_the_mutant_list() {
    check_page("parser", "default", false);
}

#[test]
fn the_placement_page_figures_match_the_generated_block_and_the_mutant_list() {
    check_page("placement", "default", false);
}

#[test]
fn the_path_page_figures_match_the_generated_block_and_the_mutant_list() {
    check_page("path", "core", false);
}

#[test]
fn the_place_chk_page_figures_match_the_generated_block_and_the_mutant_list() {
    check_page("place_chk", "core", false);
}

#[test]
fn the_fbuf_page_figures_match_the_generated_block_and_the_mutant_list() {
    check_page("fbuf", "core", false);
}

#[test]
fn the_conn_chk_page_figures_match_the_generated_block_and_the_mutant_list() {
    check_page("conn_chk", "core", false);
}

#[test]
fn the_realign_page_figures_match_the_generated_block_and_the_mutant_list() {
    check_page("realign", "core", false);
}

#[test]
fn the_ackjoin_page_figures_match_the_generated_block_and_the_mutant_list() {
    check_page("ackjoin", "core", false);
}

#[test]
fn the_cmpl_page_figures_match_the_generated_block_and_the_mutant_list() {
    check_page("cmpl", "core", false);
}

#[test]
fn the_ackgen_page_figures_match_the_generated_block_and_the_mutant_list() {
    check_page("ackgen", "core", false);
}
