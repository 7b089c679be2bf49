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

#[test]
fn the_sack_page_figures_match_the_generated_block_and_the_mutant_list() {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/blocks/sack.md")).unwrap();
    let g = mrnic_hdl::tops::block(&Config::preset("default").unwrap(), "sack").unwrap();
    let inputs = g.ports.iter().filter(|p| p.dir == PortDir::In && p.name != "clock").count() as u64;
    let outputs = g.ports.iter().filter(|p| p.dir == PortDir::Out).count() as u64;
    assert_eq!(figure(&page, "inputs (without the clock)"), inputs);
    assert_eq!(figure(&page, "outputs"), outputs);
    assert_eq!(figure(&page, "latency (cycles)"), g.latency as u64);
    assert_eq!(figure(&page, "mutants"), mrnic_verif::blocks::sack::mutants().len() as u64);
    // every mutant the page lists by name exists in the kit
    for m in mrnic_verif::blocks::sack::mutants() {
        assert!(page.contains(&format!("`{}`", m.name)) || page.contains(&m.name.replace('_', " ")), "mutant {} is not on the page", m.name);
    }
}

#[test]
fn the_parser_page_figures_match_the_generated_block_and_the_mutant_list() {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/blocks/parser.md")).unwrap();
    let g = mrnic_hdl::tops::block(&Config::preset("default").unwrap(), "parser").unwrap();
    let inputs = g.ports.iter().filter(|p| p.dir == PortDir::In && p.name != "clock").count() as u64;
    let outputs = g.ports.iter().filter(|p| p.dir == PortDir::Out).count() as u64;
    assert_eq!(figure(&page, "inputs (without the clock)"), inputs);
    assert_eq!(figure(&page, "outputs"), outputs);
    assert_eq!(figure(&page, "latency (cycles)"), g.latency as u64);
    assert_eq!(figure(&page, "mutants"), mrnic_verif::blocks::parser::mutants().len() as u64);
    for m in mrnic_verif::blocks::parser::mutants() {
        assert!(page.contains(&format!("`{}`", m.name)), "mutant {} is not on the page", m.name);
    }
}

#[test]
fn the_placement_page_figures_match_the_generated_block_and_the_mutant_list() {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/blocks/placement.md")).unwrap();
    let g = mrnic_hdl::tops::block(&Config::preset("default").unwrap(), "placement").unwrap();
    let inputs = g.ports.iter().filter(|p| p.dir == PortDir::In && p.name != "clock").count() as u64;
    let outputs = g.ports.iter().filter(|p| p.dir == PortDir::Out).count() as u64;
    assert_eq!(figure(&page, "inputs (without the clock)"), inputs);
    assert_eq!(figure(&page, "outputs"), outputs);
    assert_eq!(figure(&page, "latency (cycles)"), g.latency as u64);
    assert_eq!(figure(&page, "mutants"), mrnic_verif::blocks::placement::mutants().len() as u64);
    for m in mrnic_verif::blocks::placement::mutants() {
        assert!(page.contains(&format!("`{}`", m.name)), "mutant {} is not on the page", m.name);
    }
}

#[test]
fn the_place_chk_page_figures_match_the_generated_block_and_the_mutant_list() {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/blocks/place_chk.md")).unwrap();
    let g = mrnic_hdl::tops::block(&Config::preset("core").unwrap(), "place_chk").unwrap();
    let inputs = g.ports.iter().filter(|p| p.dir == PortDir::In && p.name != "clock").count() as u64;
    let outputs = g.ports.iter().filter(|p| p.dir == PortDir::Out).count() as u64;
    assert_eq!(figure(&page, "inputs (without the clock)"), inputs);
    assert_eq!(figure(&page, "outputs"), outputs);
    assert_eq!(figure(&page, "latency (cycles)"), g.latency as u64);
    assert_eq!(figure(&page, "mutants"), mrnic_verif::blocks::place_chk::mutants().len() as u64);
    for m in mrnic_verif::blocks::place_chk::mutants() {
        assert!(page.contains(&format!("`{}`", m.name)), "mutant {} is not on the page", m.name);
    }
}
