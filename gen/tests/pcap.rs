//! `mrnic pcap --out FILE` writes a classic pcap whose every frame our own decoder accepts
//! (IPv4 and UDP checksums, ICRC); tshark's view of the same frames is tested in
//! model/tests/wire_tshark.rs.

#[test]
fn the_cli_writes_a_pcap_whose_frames_all_decode() {
    let dir = std::env::temp_dir().join(format!("mrnic-pcap-test-{}", std::process::id()));
    let file = dir.join("sub").join("x.pcap");
    let st = std::process::Command::new(env!("CARGO_BIN_EXE_mrnic")).args(["pcap", "--out"]).arg(&file).status().unwrap();
    assert!(st.success());
    let bytes = std::fs::read(&file).unwrap();
    let (linktype, records) = mrnic_model::wire::pcap::read(&bytes).unwrap();
    assert_eq!(linktype, 1, "Ethernet");
    assert!(records.len() >= 10, "{} frames", records.len());
    for (i, r) in records.iter().enumerate() {
        mrnic_model::wire::decode(&r.data).unwrap_or_else(|e| panic!("frame {i}: {e:?}"));
    }
    std::fs::remove_dir_all(&dir).ok();
}
