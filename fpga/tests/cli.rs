//! `mrnic synth`'s arguments: every bad request is refused, before any tool runs, with what
//! was refused and why. (No tools needed: these run in milliseconds.)

use clap::Parser;
use mrnic_fpga::cli::{options, SynthArgs};

#[derive(Parser)]
struct Cmd {
    #[command(flatten)]
    args: SynthArgs,
}

fn parse(words: &[&str]) -> Result<SynthArgs, clap::Error> {
    let argv = std::iter::once("synth").chain(words.iter().copied());
    Cmd::try_parse_from(argv).map(|c| c.args)
}

fn refused(words: &[&str]) -> String {
    let args = parse(words).unwrap_or_else(|e| panic!("{words:?} should parse: {e}"));
    match options(&args) {
        Ok(o) => panic!("{words:?} was accepted: {o:?}"),
        Err(e) => e.to_string(),
    }
}

fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fpga-cli").join(name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn an_unknown_block_is_refused_with_the_known_blocks() {
    let e = refused(&["--block", "dma", "--board", "ulx3s"]);
    assert!(e.contains("unknown block 'dma'") && e.contains("sack"), "{e}");
}

#[test]
fn an_unknown_board_is_refused_with_the_known_boards() {
    let e = refused(&["--block", "sack", "--board", "arty"]);
    assert!(e.contains("unknown board 'arty'") && e.contains("ulx3s") && e.contains("icebreaker"), "{e}");
}

#[test]
fn an_unknown_preset_is_refused_with_the_presets() {
    let e = refused(&["--block", "sack", "--board", "ulx3s", "--preset", "huge"]);
    assert!(e.contains("huge") && e.contains("default") && e.contains("ice40"), "{e}");
}

#[test]
fn a_missing_config_file_is_refused_with_its_path() {
    let path = scratch("missing").join("nope.toml");
    let e = refused(&["--block", "sack", "--board", "ulx3s", "--config", path.to_str().unwrap()]);
    assert!(e.contains("nope.toml") && e.contains("cannot read"), "{e}");
}

#[test]
fn an_invalid_config_file_is_refused_with_its_path_and_field() {
    let dir = scratch("invalid");
    let bad = dir.join("wide.toml");
    std::fs::write(&bad, "name = \"wide\"\nconnections = 1024\n[sack]\nwindow = 512\n").unwrap();
    let e = refused(&["--block", "sack", "--board", "ulx3s", "--config", bad.to_str().unwrap()]);
    assert!(e.contains("wide.toml") && e.contains("sack.window") && e.contains("512"), "{e}");
    let junk = dir.join("junk.toml");
    std::fs::write(&junk, "name = \n").unwrap();
    let e = refused(&["--block", "sack", "--board", "ulx3s", "--config", junk.to_str().unwrap()]);
    assert!(e.contains("junk.toml") && e.contains("TOML"), "{e}");
}

#[test]
fn a_valid_config_file_is_used() {
    let dir = scratch("valid");
    let cfg = mrnic_model::Config::preset("ice40").unwrap();
    let mut toml = cfg.to_toml();
    toml = toml.replacen("name = \"ice40\"", "name = \"mine\"", 1);
    let path = dir.join("mine.toml");
    std::fs::write(&path, toml).unwrap();
    let args = parse(&["--block", "sack", "--board", "icebreaker", "--config", path.to_str().unwrap()]).unwrap();
    let o = options(&args).unwrap();
    assert_eq!(o.config.name, "mine");
    assert_eq!((o.config.connections, o.config.sack.window), (256, 64));
    assert_eq!(o.seeds, vec![1]);
}

#[test]
fn seeds_and_targets_out_of_range_are_refused() {
    let e = refused(&["--block", "sack", "--board", "ulx3s", "--seeds", "0"]);
    assert!(e.contains("--seeds 0"), "{e}");
    let e = refused(&["--block", "sack", "--board", "ulx3s", "--freq", "0"]);
    assert!(e.contains("--freq 0"), "{e}");
    let e = refused(&["--block", "sack", "--board", "ulx3s", "--freq", "5000"]);
    assert!(e.contains("--freq 5000"), "{e}");
}

#[test]
fn seeds_n_runs_seeds_one_to_n_and_seed_picks_one() {
    let o = options(&parse(&["--block", "sack", "--board", "ulx3s", "--seeds", "3"]).unwrap()).unwrap();
    assert_eq!(o.seeds, vec![1, 2, 3]);
    let o = options(&parse(&["--block", "sack", "--board", "ulx3s", "--seed", "7"]).unwrap()).unwrap();
    assert_eq!(o.seeds, vec![7]);
    assert_eq!(o.config.name, "default", "the board's preset when none is given");
    assert_eq!(o.dir(), std::path::Path::new("build/synth/sack/ulx3s"));
}

#[test]
fn conflicting_options_are_refused_by_the_parser() {
    assert!(parse(&["--block", "sack", "--board", "ulx3s", "--preset", "small", "--config", "x.toml"]).is_err());
    assert!(parse(&["--block", "sack", "--board", "ulx3s", "--seed", "2", "--seeds", "3"]).is_err());
    let e = parse(&["--board", "ulx3s"]).unwrap_err().to_string();
    assert!(e.contains("--block"), "--block is required: {e}");
}

#[test]
fn a_missing_tool_is_reported_with_the_setup_hint() {
    let e = mrnic_fpga::tools::find_tool("yowasp-no-such-tool").unwrap_err().to_string();
    assert!(e.contains("yowasp-no-such-tool") && e.contains("scripts/setup.sh"), "{e}");
}
