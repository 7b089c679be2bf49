# Generates hdl/src/parser.rs's repetitive parts (kept in hdl/gen_parser/ for review).
import sys
fields = []   # (name, type)
consts = []   # (name, type, init expr)
def local(n, t): fields.append((n, f"Signal<Local, {t}>"))
def dff(n, t): fields.append((n, f"DFF<{t}>"))
def K(n, w, v):
    if w == 'bool':
        consts.append((n, "Constant<bool>", f"Constant::new({v})"))
    else:
        consts.append((n, f"Constant<Bits<{w}>>", f"Constant::new(({v}u64).into())"))
    return f"self.{n}.val()"
L = []
def e(s): L.append("        " + s)

H = "self.hdr_norm.val()"
def byte(o): return f"{H}.get_bits::<8>({8*o})"
def be(o, n):
    if n == 1: return byte(o)
    w = 8*n
    parts = []
    for j in range(n):
        sh = 8*(n-1-j)
        t = f"bit_cast::<{w}, 8>({byte(o+j)})"
        parts.append(f"({t} << {sh})" if sh else t)
    return " | ".join(parts)

DROP = ["truncated_ethernet","truncated_ipv4","truncated_udp","truncated_bth","truncated_extension","bad_ethertype","bad_ip_version","bad_ip_header_length","bad_ip_total_length","trailing_bytes","bad_ip_checksum","fragmented","not_udp","wrong_udp_port","udp_length_mismatch","bad_udp_checksum","bad_icrc","bad_transport_version","unknown_opcode","length_mismatch","bad_pad_count","bad_path_id","sack_base_bit_set","bad_nak_code","mac_error","bad_keep","too_long"]
GOOD = ["write","send","ack","nak","probe","probe_reply"]
REC = [("opcode",8),("dest_qp",24),("psn",24),("path_id",4),("path_psn",24),("msn",32),("offset",32),("flags",8),("va",64),("rkey",32),("length",32),("ecn",2)]
CHECKS = ["tr_eth","ethertype","tr_ip1","ver","ihl","tot","tr_ip2","trail","frag","notudp","tr_udp","port","ulen","ucs_nz","tr_bth","tver","op","tr_ext","lm","pad","path","sack","nak","mac","bk","tl"]

# ---------------- stage I: the input beat
local("ready_i","bool"); local("go","bool")
e("// ================= stage I: the input beat (cycle 0 = the cycle it is transferred)")
e("self.ready_i.next = !self.rst.val() & !(self.o_valid.q.val() & !self.m_hdr_ready.val());")
e("self.s_axis_tready.next = self.ready_i.val();")
e("self.go.next = self.s_axis_tvalid.val() & self.ready_i.val();")
local("n","Bits<4>"); local("contig","bool"); local("keep_ok","bool")
for i in range(9): K(f"k_n{i}",4,i)
e(f"self.n.next = self.k_n0.val();")
e("self.contig.next = false;")
e("match self.s_axis_tkeep.val().index() {")
for i in range(9):
    e(f"    {(1<<i)-1} => {{ self.n.next = self.k_n{i}.val(); self.contig.next = true; }}")
e("    _ => {}")
e("}")
e("self.keep_ok.next = self.contig.val() & (self.n.val() == self.k_n8.val());")
e("if self.s_axis_tlast.val() { self.keep_ok.next = self.contig.val() & (self.n.val() != self.k_n0.val()); }")
dff("bcnt","Bits<4>"); dff("cnt","Bits<14>"); dff("acc_mac","bool"); dff("acc_bk","bool"); dff("acc_tl","bool"); dff("tg","bool")
local("cnt_now","Bits<14>"); local("mac_now","bool"); local("bk_now","bool"); local("tl_now","bool")
K("k_max",14,9216)
e("self.cnt_now.next = self.cnt.q.val() + bit_cast::<14, 4>(self.n.val());")
e("self.mac_now.next = self.acc_mac.q.val() | self.s_axis_tuser.val();")
e("self.bk_now.next = self.acc_bk.q.val() | !self.keep_ok.val();")
e("self.tl_now.next = self.acc_tl.q.val() | (self.cnt_now.val() > self.k_max.val());")
for b in range(14): K(f"k_b{b}",4,b)
K("k_b15",4,15)
# beat-number flags (for the registers that hold the next beat's enables and masks)
IS_B = [0,1,2,3,4,5]
for b in IS_B: local(f"is_b{b}","bool")
for b in IS_B: e(f"self.is_b{b}.next = self.bcnt.q.val() == self.k_b{b}.val();")
local("tg_b1","bool"); K("k_tpid_le",16,0x0081)
e("self.tg_b1.next = self.s_axis_tdata.val().get_bits::<16>(32) == self.k_tpid_le.val();")
e("if self.go.val() {")
e("    if self.s_axis_tlast.val() {")
e("        self.bcnt.d.next = self.k_b0.val();")
e("        self.cnt.d.next = self.k_z14.val();")
e("        self.acc_mac.d.next = false;")
e("        self.acc_bk.d.next = false;")
e("        self.acc_tl.d.next = false;")
e("    } else {")
e("        if self.bcnt.q.val() != self.k_b15.val() { self.bcnt.d.next = self.bcnt.q.val() + self.k_b1.val(); }")
e("        self.cnt.d.next = self.cnt_now.val();")
e("        self.acc_mac.d.next = self.mac_now.val();")
e("        self.acc_bk.d.next = self.bk_now.val();")
e("        self.acc_tl.d.next = self.tl_now.val();")
e("    }")
e("    if self.is_b1.val() { self.tg.d.next = self.tg_b1.val(); }")
e("}")
K("k_z14",14,0)
e("// header lanes: beat k of the frame (k = 1..13; beat 0 holds only the MAC addresses)")
for k in range(1,14):
    dff(f"hdr_l{k}","Bits<64>")
    e(f"if self.go.val() & (self.bcnt.q.val() == self.k_b{k}.val()) {{ self.hdr_l{k}.d.next = self.s_axis_tdata.val(); }}")
# CRC masks (filled at construction: k_cand_*, k_cor_*)
e("// ICRC: the Ethernet header replaced by a steering prefix, invariant fields forced to 0xFF")
local("crc_and","Bits<64>"); local("crc_or","Bits<64>")
K("k_ones64",64,"0xFFFF_FFFF_FFFF_FFFF"); K("k_z64",64,0)
# (beat 1 tagged enters only as its difference from untagged, k_dand_1 / k_dor_1 below)
for nm in ["0","1u","2u","2t","3u","3t","5u","5t","6t"]:
    consts.append((f"k_cand_{nm}","Constant<Bits<64>>",f"Constant::new(m.and_{nm}.into())"))
    consts.append((f"k_cor_{nm}","Constant<Bits<64>>",f"Constant::new(m.or_{nm}.into())"))
# the next beat's masks are registered one beat ahead (they depend on the beat number and the
# tag only); beat 1's, which its own tag compare chooses, is the untagged one with the bits
# where the tagged one differs flipped by that compare (no other bit waits for it)
dff("cm_and","Bits<64>"); dff("cm_or","Bits<64>"); dff("cm_b1","bool")
consts.append(("k_dand_1","Constant<Bits<64>>","Constant::new((m.and_1u ^ m.and_1t).into())"))
consts.append(("k_dor_1","Constant<Bits<64>>","Constant::new((m.or_1u ^ m.or_1t).into())"))
e("if self.go.val() {")
e("    self.cm_and.d.next = self.k_ones64.val(); self.cm_or.d.next = self.k_z64.val(); self.cm_b1.d.next = false;")
e("    if self.s_axis_tlast.val() {")
e("        self.cm_and.d.next = self.k_cand_0.val(); self.cm_or.d.next = self.k_cor_0.val();")
e("    } else {")
e("        if self.is_b0.val() { self.cm_and.d.next = self.k_cand_1u.val(); self.cm_or.d.next = self.k_cor_1u.val(); self.cm_b1.d.next = true; }")
e("        if self.is_b1.val() {")
e("            self.cm_and.d.next = self.k_cand_2u.val(); self.cm_or.d.next = self.k_cor_2u.val();")
e("            if self.tg_b1.val() { self.cm_and.d.next = self.k_cand_2t.val(); self.cm_or.d.next = self.k_cor_2t.val(); }")
e("        }")
for (b, nb) in [(2,3),(4,5)]:
    e(f"        if self.is_b{b}.val() {{")
    e(f"            self.cm_and.d.next = self.k_cand_{nb}u.val(); self.cm_or.d.next = self.k_cor_{nb}u.val();")
    e(f"            if self.tg.q.val() {{ self.cm_and.d.next = self.k_cand_{nb}t.val(); self.cm_or.d.next = self.k_cor_{nb}t.val(); }}")
    e("        }")
e("        if self.is_b5.val() & self.tg.q.val() { self.cm_and.d.next = self.k_cand_6t.val(); self.cm_or.d.next = self.k_cor_6t.val(); }")
e("    }")
e("}")
e("self.crc_and.next = self.cm_and.q.val();")
e("self.crc_or.next = self.cm_or.q.val();")
e("if self.cm_b1.q.val() & self.tg_b1.val() { self.crc_and.next = self.cm_and.q.val() ^ self.k_dand_1.val(); self.crc_or.next = self.cm_or.q.val() ^ self.k_dor_1.val(); }")
e("self.icrc.clock.next = self.clock.val();")
e("self.icrc.rst.next = self.rst.val();")
e("self.icrc.s_valid.next = self.go.val();")
e("self.icrc.s_first.next = self.at_b0.q.val();")
e("self.icrc.s_last.next = self.s_axis_tlast.val();")
e("self.icrc.s_data.next = (self.s_axis_tdata.val() & self.crc_and.val()) | self.crc_or.val();")
e("self.icrc.s_bytes.next = bit_cast::<8, 4>(self.n.val());")
# IPv4 sum
e("// IPv4 header sum over bytes [14, 34) ([18, 38) tagged)")
local("ip_keep","Bits<8>"); K("k_z8",8,0); K("k_ff8",8,0xFF); K("k_ipk1u",8,0xC0); K("k_ipk2t",8,0xFC); K("k_ipk4u",8,0x03); K("k_ipk4t",8,0x3F)
# the checksums' byte enables and first-beat flags are registered one beat ahead (they depend
# only on the beat number and the tag), so the lanes' adds start from registers. Beat 1's
# bytes 14, 15 (the IPv4 header's first word untagged, the VLAN TCI tagged) are always summed:
# a tagged frame's TCI is cancelled by its one's complement as the sum's extra word (x + ~x =
# 0xFFFF = 0 in one's-complement arithmetic; the folded result differs only for an all-zero
# header, which the version check drops first), so no enable waits for the beat's tag compare
dff("ipk","Bits<8>"); dff("udk","Bits<8>"); dff("at_b0","bool"); local("ge3","bool"); local("ip_add","Bits<16>")
e("// the next beat's checksum byte enables (registered ahead; the beat counter's own update)")
e("self.ge3.next = self.bcnt.q.val() >= self.k_b3.val();")
e("if self.go.val() {")
e("    self.ipk.d.next = self.k_z8.val();")
e("    self.udk.d.next = self.k_z8.val();")
e("    self.at_b0.d.next = self.s_axis_tlast.val();")
e("    if !self.s_axis_tlast.val() {")
e("        if self.is_b0.val() { self.ipk.d.next = self.k_ipk1u.val(); }")
e("        if self.is_b1.val() { self.ipk.d.next = self.k_ff8.val(); if self.tg_b1.val() { self.ipk.d.next = self.k_ipk2t.val(); } }")
e("        if self.is_b2.val() {")
e("            self.ipk.d.next = self.k_ff8.val();")
e("            self.udk.d.next = self.k_uk3u.val(); if self.tg.q.val() { self.udk.d.next = self.k_uk3t.val(); }")
e("        }")
e("        if self.is_b3.val() { self.ipk.d.next = self.k_ipk4u.val(); if self.tg.q.val() { self.ipk.d.next = self.k_ipk4t.val(); } }")
e("        if self.ge3.val() { self.udk.d.next = self.k_ff8.val(); }")
e("    }")
e("}")
e("self.ip_keep.next = self.ipk.q.val();")
e("// a tagged frame's TCI (beat 1's bytes 14, 15, big-endian) enters again as its complement")
e("self.ip_add.next = self.k_z16.val();")
e("if self.tg.q.val() { self.ip_add.next = !((bit_cast::<16, 8>(self.hdr_l1.q.val().get_bits::<8>(48)) << 8) | bit_cast::<16, 8>(self.hdr_l1.q.val().get_bits::<8>(56))); }")
e("self.ipsum.clock.next = self.clock.val();")
e("self.ipsum.rst.next = self.rst.val();")
e("self.ipsum.s_valid.next = self.go.val();")
e("self.ipsum.s_first.next = self.at_b0.q.val();")
e("self.ipsum.s_last.next = self.s_axis_tlast.val();")
e("self.ipsum.s_data.next = self.s_axis_tdata.val();")
e("self.ipsum.s_keep.next = self.ip_keep.val();")
e("self.ipsum.s_add.next = self.ip_add.val();")
K("k_z16",16,0)
e("// UDP sum over bytes [26, end) ([30, end) tagged) plus 17 + UDP length (= N - l4)")
local("udp_keep","Bits<8>"); K("k_uk3u",8,0xFC); K("k_uk3t",8,0xC0)
K("k_addu",16,(17-34)&0xFFFF); K("k_addt",16,(17-38)&0xFFFF)
local("udp_add","Bits<16>")
e("self.udp_keep.next = self.udk.q.val();")
e("self.udp_add.next = bit_cast::<16, 14>(self.cnt_now.val()) + self.k_addu.val();")
e("if self.tg.q.val() { self.udp_add.next = bit_cast::<16, 14>(self.cnt_now.val()) + self.k_addt.val(); }")
e("self.udpsum.clock.next = self.clock.val();")
e("self.udpsum.rst.next = self.rst.val();")
e("self.udpsum.s_valid.next = self.go.val();")
e("self.udpsum.s_first.next = self.at_b0.q.val();")
e("self.udpsum.s_last.next = self.s_axis_tlast.val();")
e("self.udpsum.s_data.next = self.s_axis_tdata.val();")
e("self.udpsum.s_keep.next = self.udp_keep.val() & self.s_axis_tkeep.val();")
e("self.udpsum.s_add.next = self.udp_add.val();")
dff("f1_valid","bool"); dff("f1_n","Bits<14>"); dff("f1_mac","bool"); dff("f1_bk","bool"); dff("f1_tl","bool")
e("self.f1_valid.d.next = self.go.val() & self.s_axis_tlast.val();")
e("self.f1_n.d.next = self.cnt_now.val();")
e("self.f1_mac.d.next = self.mac_now.val();")
e("self.f1_bk.d.next = self.bk_now.val();")
e("self.f1_tl.d.next = self.tl_now.val();")

# ---------------- stage F1: field checks from the header lanes
e("// ================= stage F1 (cycle 1): every field check from the header, independently")
local("hdr_wide","Bits<896>"); local("hdr_tag","bool"); local("hdr_norm","Bits<896>")
terms = ["(bit_cast::<896, 64>(self.hdr_l%d.q.val()) << %d)" % (k, 64*k) for k in range(1,14)]
e("self.hdr_wide.next = " + " | ".join(terms) + ";")
e("self.hdr_tag.next = self.hdr_l1.q.val().get_bits::<16>(32) == self.k_tpid_le.val();")
e("self.hdr_norm.next = self.hdr_wide.val();")
e("if self.hdr_tag.val() { self.hdr_norm.next = self.hdr_wide.val() >> 32; }")
def fld(n, w, expr):
    local(n, f"Bits<{w}>"); e(f"self.{n}.next = {expr};")
fld("x_et",16,be(12,2)); fld("x_vi",8,byte(14)); fld("x_total",16,be(16,2)); fld("x_ff",16,be(20,2)); fld("x_proto",8,byte(23))
fld("x_dport",16,be(36,2)); fld("x_ulen",16,be(38,2)); fld("x_ucs",16,be(40,2)); fld("x_op",8,byte(42))
fld("x_tv",4,f"{H}.get_bits::<4>({8*43})"); fld("x_pad",2,f"{H}.get_bits::<2>({8*43+4})")
fld("x_qp",24,be(47,3)); fld("x_psn",24,be(51,3)); fld("x_b0",8,byte(54)); fld("x_b1",8,byte(55))
fld("x_ppsn",24,be(55,3)); fld("x_msn",32,be(58,4)); fld("x_off",32,be(62,4)); fld("x_dflags",8,byte(66)); fld("x_aflags",8,byte(58))
fld("x_va",64,be(74,8)); fld("x_rkey",32,be(82,4)); fld("x_len",32,be(86,4)); fld("x_ecn",2,f"{H}.get_bits::<2>({8*15})")
local("x_sack0","bool"); e(f"self.x_sack0.next = {H}.get_bit({8*105});")
# lengths (F1: from the registered byte count and the tag; rem4 directly, not through rem3)
local("rem3","Bits<16>"); local("rem4","Bits<16>")
K("k_14n",14,14); K("k_18n",14,18); K("k_14",16,14); K("k_18",16,18); K("k_34",16,34); K("k_38",16,38)
K("k_20",16,20); K("k_8",16,8); K("k_24",16,24); K("k_44",16,44); K("k_56",16,56); K("k_80",16,80); K("k_96",16,96)
e("self.rem3.next = bit_cast::<16, 14>(self.f1_n.q.val()) - self.k_14.val();")
e("if self.hdr_tag.val() { self.rem3.next = bit_cast::<16, 14>(self.f1_n.q.val()) - self.k_18.val(); }")
e("self.rem4.next = bit_cast::<16, 14>(self.f1_n.q.val()) - self.k_34.val();")
e("if self.hdr_tag.val() { self.rem4.next = bit_cast::<16, 14>(self.f1_n.q.val()) - self.k_38.val(); }")
local("c_tr_eth","bool")
e("self.c_tr_eth.next = (self.f1_n.q.val() < self.k_14n.val()) | (self.hdr_tag.val() & (self.f1_n.q.val() < self.k_18n.val()));")
# F2 registers: the tag-normalised fields, the remaining counts, the stream-level flags
XF = [("et",16),("vi",8),("total",16),("ff",16),("proto",8),("dport",16),("ulen",16),("ucs",16),("op",8),("tv",4),("pad",2),("qp",24),("psn",24),("b0",8),("b1",8),("ppsn",24),("msn",32),("off",32),("dflags",8),("aflags",8),("va",64),("rkey",32),("len",32),("ecn",2),("sack0",1)]
F2R = [("valid",1),("c_tr_eth",1),("c_mac",1),("c_bk",1),("c_tl",1),("rem3",16),("rem4",16)] + [("x_"+n,w) for (n,w) in XF]
def T(w): return "bool" if w==1 else f"Bits<{w}>"
for (n,w) in F2R: dff("f2_"+n, T(w))
e("// F1 -> F2 registers: the normalised fields (the tag mux and the lanes' routing end here)")
e("self.f2_valid.d.next = self.f1_valid.q.val();")
e("self.f2_c_tr_eth.d.next = self.c_tr_eth.val();")
e("self.f2_c_mac.d.next = self.f1_mac.q.val();")
e("self.f2_c_bk.d.next = self.f1_bk.q.val();")
e("self.f2_c_tl.d.next = self.f1_tl.q.val();")
e("self.f2_rem3.d.next = self.rem3.val();")
e("self.f2_rem4.d.next = self.rem4.val();")
for (n,w) in XF: e(f"self.f2_x_{n}.d.next = self.x_{n}.val();")
def X(n): return f"self.f2_x_{n}.q.val()"
# ---------------- stage F2: every field check from the registered fields
e("// ================= stage F2 (cycle 2): every field check, independently, and the record")
# the BTH body is total - 44 bytes (IPv4 20, UDP 8, BTH 12, mod 2^16 as the model's); its
# checks are written against `total` directly, so no check has two carry chains in series:
# body < n  <=>  44 <= total < 44 + n;  body != n  <=>  total != 44 + n;
# data: len + pad + 36 != body  <=>  len + pad != total - 80 (mod 2^16)
local("ge44","bool"); local("lt56","bool"); local("lt80","bool"); local("lt96","bool"); local("d_tot80","Bits<16>")
e(f"self.ge44.next = {X('total')} >= self.k_44.val();")
e(f"self.lt56.next = {X('total')} < self.k_56.val();")
e(f"self.lt80.next = {X('total')} < self.k_80.val();")
e(f"self.lt96.next = {X('total')} < self.k_96.val();")
e(f"self.d_tot80.next = {X('total')} - self.k_80.val();")
for c in CHECKS:
    if c != "tr_eth": local("c_"+c, "bool")
K("k_et_ipv4",16,0x0800); K("k_4",4,4); K("k_5",4,5); K("k_ffmask",16,0x3FFF); K("k_17",8,17); K("k_port",16,4791)
K("k_opw",8,0xC0); K("k_ops",8,0xC1); K("k_opa",8,0xC2); K("k_opn",8,0xC3); K("k_opp",8,0xC4); K("k_oppr",8,0xC5)
K("k_z4",4,0); K("k_z2",2,0); K("k_z18",18,0); K("k_6",8,6); K("k_z24",24,0); K("k_z32",32,0); K("k_z64b",64,0)
e(f"self.c_ethertype.next = {X('et')} != self.k_et_ipv4.val();")
e("self.c_tr_ip1.next = self.f2_rem3.q.val() < self.k_20.val();")
e(f"self.c_ver.next = {X('vi')}.get_bits::<4>(4) != self.k_4.val();")
e(f"self.c_ihl.next = {X('vi')}.get_bits::<4>(0) != self.k_5.val();")
e(f"self.c_tot.next = {X('total')} < self.k_20.val();")
e(f"self.c_tr_ip2.next = {X('total')} > self.f2_rem3.q.val();")
e(f"self.c_trail.next = {X('total')} < self.f2_rem3.q.val();")
e(f"self.c_frag.next = ({X('ff')} & self.k_ffmask.val()) != self.k_z16.val();")
e(f"self.c_notudp.next = {X('proto')} != self.k_17.val();")
e("self.c_tr_udp.next = self.f2_rem4.q.val() < self.k_8.val();")
e(f"self.c_port.next = {X('dport')} != self.k_port.val();")
e(f"self.c_ulen.next = {X('ulen')} != self.f2_rem4.q.val();")
e(f"self.c_ucs_nz.next = {X('ucs')} != self.k_z16.val();")
e("self.c_tr_bth.next = self.f2_rem4.q.val() < self.k_24.val();")
e(f"self.c_tver.next = {X('tv')} != self.k_z4.val();")
for o in ["w","s","a","n","p","pr"]: local("is_"+o,"bool")
for o,k in [("w","opw"),("s","ops"),("a","opa"),("n","opn"),("p","opp"),("pr","oppr")]:
    e(f"self.is_{o}.next = {X('op')} == self.k_{k}.val();")
local("is_data","bool"); local("is_fixed","bool")
e("self.is_data.next = self.is_w.val() | self.is_s.val();")
e("self.is_fixed.next = self.is_a.val() | self.is_n.val() | self.is_p.val() | self.is_pr.val();")
e("self.c_op.next = !(self.is_data.val() | self.is_fixed.val());")
local("d_exp","Bits<16>"); local("d_wpad","Bits<2>"); local("pid","Bits<8>")
e(f"self.d_exp.next = bit_cast::<16, 14>({X('len')}.get_bits::<14>(0)) + bit_cast::<16, 2>({X('pad')});")
e(f"self.d_wpad.next = self.k_z2.val() - {X('len')}.get_bits::<2>(0);")
e(f"self.pid.next = {X('b0')};")
e(f"if self.is_n.val() {{ self.pid.next = {X('b1')}; }}")
e("if self.is_data.val() {")
e("    self.c_tr_ext.next = self.ge44.val() & self.lt80.val();")
e(f"    self.c_lm.next = ({X('len')}.get_bits::<18>(14) != self.k_z18.val()) | (self.d_exp.val() != self.d_tot80.val());")
e(f"    self.c_pad.next = {X('pad')} != self.d_wpad.val();")
e("} else {")
e("    self.c_tr_ext.next = self.ge44.val() & self.lt56.val();")
e(f"    self.c_lm.next = {X('total')} != self.k_56.val();")
e("    if self.is_a.val() {")
e("        self.c_tr_ext.next = self.ge44.val() & self.lt96.val();")
e(f"        self.c_lm.next = {X('total')} != self.k_96.val();")
e("    }")
e(f"    self.c_pad.next = {X('pad')} != self.k_z2.val();")
e("}")
e("self.c_path.next = self.pid.val().get_bits::<4>(4) != self.k_z4.val();")
e(f"self.c_sack.next = self.is_a.val() & {X('sack0')};")
e(f"self.c_nak.next = self.is_n.val() & (({X('b0')} == self.k_z8.val()) | ({X('b0')} > self.k_6.val()));")
e("self.c_mac.next = self.f2_c_mac.q.val();")
e("self.c_bk.next = self.f2_c_bk.q.val();")
e("self.c_tl.next = self.f2_c_tl.q.val();")
# record
e("// the record (fields an opcode does not carry are 0)")
for (r,w) in REC: local("r_"+r, f"Bits<{w}>")
e(f"self.r_opcode.next = {X('op')};")
e(f"self.r_dest_qp.next = {X('qp')};")
e(f"self.r_psn.next = {X('psn')};")
e("self.r_path_id.next = self.pid.val().get_bits::<4>(0);")
e(f"self.r_ecn.next = {X('ecn')};")
e("self.r_path_psn.next = self.k_z24.val();")
e("self.r_msn.next = self.k_z32.val();")
e("self.r_offset.next = self.k_z32.val();")
e("self.r_flags.next = self.k_z8.val();")
e("self.r_va.next = self.k_z64b.val();")
e("self.r_rkey.next = self.k_z32.val();")
e("self.r_length.next = self.k_z32.val();")
e("if self.is_data.val() {")
e(f"    self.r_path_psn.next = {X('ppsn')};")
e(f"    self.r_msn.next = {X('msn')};")
e(f"    self.r_offset.next = {X('off')};")
e(f"    self.r_flags.next = {X('dflags')};")
e(f"    self.r_va.next = {X('va')};")
e(f"    self.r_rkey.next = {X('rkey')};")
e(f"    self.r_length.next = {X('len')};")
e("}")
e(f"if self.is_a.val() {{ self.r_path_psn.next = {X('ppsn')}; self.r_flags.next = {X('aflags')}; }}")
e(f"if self.is_n.val() {{ self.r_msn.next = {X('msn')}; }}")
# F3 registers: every check and the record
carry3 = [("valid",1)] + [("c_"+c,1) for c in CHECKS] + [("r_"+r,w) for (r,w) in REC]
for (n,w) in carry3: dff("f3_"+n, T(w))
e("// F2 -> F3 registers: every check bit and the record")
for (n,w) in carry3:
    src = "self.f2_valid.q.val()" if n=="valid" else f"self.{n}.val()"
    if n == "c_tr_eth": src = "self.f2_c_tr_eth.q.val()"
    e(f"self.f3_{n}.d.next = {src};")
# ---------------- stage F3: the priority encoding within each run of checks between two checksums
# the model's order: [A] mac bk tl tr_eth ethertype tr_ip1 ver ihl tot tr_ip2 trail, IPv4 sum,
# [B] frag notudp tr_udp port ulen, UDP sum, [C] tr_bth, ICRC, [D] tver op tr_ext lm pad path sack nak
GA = [("mac",25),("bk",26),("tl",27),("tr_eth",1),("ethertype",6),("tr_ip1",2),("ver",7),("ihl",8),("tot",9),("tr_ip2",2),("trail",10)]
GB = [("frag",12),("notudp",13),("tr_udp",3),("port",14),("ulen",15)]
GD = [("tver",18),("op",19),("tr_ext",5),("lm",20),("pad",21),("path",22),("sack",23),("nak",24)]
for i in range(28): K(f"k_c{i}",5,i)
e("// ================= stage F3 (cycle 3): each run of checks between two checksums priority-encoded")
for g,G in [("a",GA),("b",GB),("d",GD)]:
    local(f"code_{g}","Bits<5>"); local(f"any_{g}","bool")
    e(f"self.any_{g}.next = " + " | ".join(f"self.f3_c_{c}.q.val()" for c,_ in G) + ";")
    e(f"self.code_{g}.next = self.k_c0.val();")
    for c,k in reversed(G):
        e(f"if self.f3_c_{c}.q.val() {{ self.code_{g}.next = self.k_c{k}.val(); }}")
carry4 = [("valid",1),("code_a",5),("any_a",1),("code_b",5),("any_b",1),("any_c",1),("code_d",5),("any_d",1),("c_ucs_nz",1)] + [("r_"+r,w) for (r,w) in REC]
for (n,w) in carry4: dff("f4_"+n, T(w))
e("// F3 -> F4 registers")
for (n,w) in carry4:
    if n == "valid": src = "self.f3_valid.q.val()"
    elif n == "any_c": src = "self.f3_c_tr_bth.q.val()"
    elif n.startswith("r_") or n == "c_ucs_nz": src = f"self.f3_{n}.q.val()"
    else: src = f"self.{n}.val()"
    e(f"self.f4_{n}.d.next = {src};")
# ---------------- stage F4: the checksums arrive; the runs and the checksums in the model's order
e("// ================= stage F4 (cycle 4): the checksums arrive")
dff("s4_ip_ok","bool"); dff("s4_udp_ok","bool"); K("k_ffff",16,0xFFFF)
e("self.s4_ip_ok.d.next = self.ipsum.m_valid.val() & (self.ipsum.m_sum.val() == self.k_ffff.val());")
e("self.s4_udp_ok.d.next = self.udpsum.m_valid.val() & (self.udpsum.m_sum.val() == self.k_ffff.val());")
local("crc_ok","bool"); K("k_residue",32,"0xDEBB_20E3")
e("self.crc_ok.next = self.icrc.m_valid.val() & (self.icrc.m_crc.val() == self.k_residue.val());")
local("udp_bad","bool")
e("self.udp_bad.next = self.f4_c_ucs_nz.q.val() & !self.s4_udp_ok.q.val();")
# the ICRC compare is the late input (a 32-bit compare of the engine's register): everything else
# is computed from registers beside it and crc_ok enters one gate before the registers.
# sel_x: item x decides (it fails, every earlier item passes); p_c: every item up to the ICRC passes
for s in ["p_a","p_ip","p_b","p_u","p_c","sel_ip","sel_b","sel_u","sel_c","good_pre"]: local(s,"bool")
e("self.p_a.next = !self.f4_any_a.q.val();")
e("self.sel_ip.next = self.p_a.val() & !self.s4_ip_ok.q.val();")
e("self.p_ip.next = self.p_a.val() & self.s4_ip_ok.q.val();")
e("self.sel_b.next = self.p_ip.val() & self.f4_any_b.q.val();")
e("self.p_b.next = self.p_ip.val() & !self.f4_any_b.q.val();")
e("self.sel_u.next = self.p_b.val() & self.udp_bad.val();")
e("self.p_u.next = self.p_b.val() & !self.udp_bad.val();")
e("self.sel_c.next = self.p_u.val() & self.f4_any_c.q.val();")
e("self.p_c.next = self.p_u.val() & !self.f4_any_c.q.val();")
e("self.good_pre.next = self.p_c.val() & !self.f4_any_d.q.val();")
local("code","Bits<5>"); local("code_ok","Bits<5>"); local("code_bad","Bits<5>")
e("// the verdict code (stat_last_verdict): with the ICRC good, with it bad, then the choice")
e("self.code_ok.next = self.k_c0.val();")
e("if self.f4_any_d.q.val() { self.code_ok.next = self.f4_code_d.q.val(); }")
e("if self.f4_any_c.q.val() { self.code_ok.next = self.k_c4.val(); }")
e("if self.udp_bad.val() { self.code_ok.next = self.k_c16.val(); }")
e("if self.f4_any_b.q.val() { self.code_ok.next = self.f4_code_b.q.val(); }")
e("if !self.s4_ip_ok.q.val() { self.code_ok.next = self.k_c11.val(); }")
e("if self.f4_any_a.q.val() { self.code_ok.next = self.f4_code_a.q.val(); }")
e("self.code_bad.next = self.k_c17.val();")
e("if self.f4_any_c.q.val() { self.code_bad.next = self.k_c4.val(); }")
e("if self.udp_bad.val() { self.code_bad.next = self.k_c16.val(); }")
e("if self.f4_any_b.q.val() { self.code_bad.next = self.f4_code_b.q.val(); }")
e("if !self.s4_ip_ok.q.val() { self.code_bad.next = self.k_c11.val(); }")
e("if self.f4_any_a.q.val() { self.code_bad.next = self.f4_code_a.q.val(); }")
e("self.code.next = self.code_bad.val();")
e("if self.crc_ok.val() { self.code.next = self.code_ok.val(); }")
# counter enables: code == k decoded per item, split into the part the ICRC does not decide
# (pre_), the part it decides good (dk_: run D) and the ICRC's own reason
FIXED = {11:"sel_ip",16:"sel_u",4:"sel_c"}
for i,d in enumerate(DROP):
    k = i+1
    local("pre_"+d,"bool"); local("dk_"+d,"bool"); local("hit_"+d,"bool")
    terms = [f"(self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c{k}.val()))",
             f"(self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c{k}.val()))"]
    if k in FIXED: terms.append(f"self.{FIXED[k]}.val()")
    e(f"self.pre_{d}.next = " + " | ".join(terms) + ";")
    e(f"self.dk_{d}.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c{k}.val());")
    if k == 17:
        e(f"self.hit_{d}.next = self.pre_{d}.val() | (self.crc_ok.val() & self.dk_{d}.val()) | (!self.crc_ok.val() & self.p_c.val());")
    else:
        e(f"self.hit_{d}.next = self.pre_{d}.val() | (self.crc_ok.val() & self.dk_{d}.val());")
for g,k in zip(GOOD,["w","s","a","n","p","pr"]):
    local("gk_"+g,"bool")
    e(f"self.gk_{g}.next = self.good_pre.val() & (self.f4_r_opcode.q.val() == self.k_op{k}.val());")
# output stage
e("// ================= stage O (cycle 5): record, counters, last verdict")
dff("o_valid","bool")
for (r,w) in REC: dff("o_"+r, T(w))
for d in DROP: dff("n_drop_"+d, "Bits<32>")
for g in GOOD: dff("n_good_"+g, "Bits<32>")
dff("o_last","Bits<5>")
e("if self.o_valid.q.val() & self.m_hdr_ready.val() { self.o_valid.d.next = false; }")
e("if self.f4_valid.q.val() {")
e("    self.o_last.d.next = self.code.val();")
e("    if self.good_pre.val() & self.crc_ok.val() { self.o_valid.d.next = true; }")
e("    // the record's data needs no ICRC: a frame passing every other check is >= 8 beats, so the")
e("    // output register is empty here (hazards); m_hdr_* are only meaningful with m_hdr_valid")
e("    if self.good_pre.val() {")
for (r,w) in REC: e(f"        self.o_{r}.d.next = self.f4_r_{r}.q.val();")
e("    }")
for g in GOOD:
    e(f"    if self.gk_{g}.val() & self.crc_ok.val() {{ self.n_good_{g}.d.next = self.n_good_{g}.q.val() + 1; }}")
for i,d in enumerate(DROP):
    e(f"    if self.hit_{d}.val() {{ self.n_drop_{d}.d.next = self.n_drop_{d}.q.val() + 1; }}")
e("}")
# reset
K("k_none",5,31); K("k_z32b",32,0)
e("// ================= reset")
e("if self.rst.val() {")
for r in ["bcnt"]: e(f"    self.{r}.d.next = self.k_b0.val();")
e("    self.cnt.d.next = self.k_z14.val();")
e("    self.ipk.d.next = self.k_z8.val();")
e("    self.udk.d.next = self.k_z8.val();")
e("    self.at_b0.d.next = true;")
e("    self.cm_and.d.next = self.k_cand_0.val();")
e("    self.cm_or.d.next = self.k_cor_0.val();")
e("    self.cm_b1.d.next = false;")
for r in ["acc_mac","acc_bk","acc_tl","f1_valid","f2_valid","f3_valid","f4_valid","o_valid"]: e(f"    self.{r}.d.next = false;")
e("    self.o_last.d.next = self.k_none.val();")
for d in DROP: e(f"    self.n_drop_{d}.d.next = self.k_z32b.val();")
for g in GOOD: e(f"    self.n_good_{g}.d.next = self.k_z32b.val();")
e("}")
e("// ================= outputs")
e("self.m_hdr_valid.next = self.o_valid.q.val();")
for (r,w) in REC: e(f"self.m_hdr_{r}.next = self.o_{r}.q.val();")
for d in DROP: e(f"self.stat_drop_{d}.next = self.n_drop_{d}.q.val();")
for g in GOOD: e(f"self.stat_good_{g}.next = self.n_good_{g}.q.val();")
e("self.stat_last_verdict.next = self.o_last.q.val();")

# ---------------- emit
ports_in = [("clock","Clock"),("rst","bool"),("s_axis_tvalid","bool"),("s_axis_tdata","Bits<64>"),("s_axis_tkeep","Bits<8>"),("s_axis_tlast","bool"),("s_axis_tuser","bool"),("m_hdr_ready","bool")]
ports_out = [("s_axis_tready","bool"),("m_hdr_valid","bool")] + [("m_hdr_"+r, T(w)) for (r,w) in REC]
ports_stat = [("stat_drop_"+d,"Bits<32>") for d in DROP] + [("stat_good_"+g,"Bits<32>") for g in GOOD] + [("stat_last_verdict","Bits<5>")]
out = []
out.append("#[derive(LogicBlock)]\npub struct Parser {")
out.append("    // ---- inputs")
for n,t in ports_in: out.append(f"    pub {n}: Signal<In, {t}>,")
out.append("    // ---- outputs")
for n,t in ports_out: out.append(f"    pub {n}: Signal<Out, {t}>,")
out.append("    // ---- status")
for n,t in ports_stat: out.append(f"    pub {n}: Signal<Out, {t}>,")
out.append("    // ---- checksum primitives")
out.append("    icrc: Crc32Stream<64>,\n    ipsum: OnesSum<64, 8>,\n    udpsum: OnesSum<64, 8>,")
out.append("    // ---- registers and locals (stage by stage, see the update)")
for n,t in fields: out.append(f"    {n}: {t},")
for n,t,_ in consts: out.append(f"    {n}: {t},")
out.append("}\n")
out.append("impl Parser {\n    fn build(m: &CrcMasks) -> Parser {\n        Parser {")
for n,_ in ports_in+ports_out+ports_stat: out.append(f"            {n}: Default::default(),")
out.append("            icrc: Crc32Stream::new(CRC_INIT),\n            ipsum: OnesSum::new(),\n            udpsum: OnesSum::new(),")
for n,_ in fields: out.append(f"            {n}: Default::default(),")
for n,_,i in consts: out.append(f"            {n}: {i},")
out.append("        }\n    }\n}\n")
out.append("impl Logic for Parser {\n    #[hdl_gen]\n    fn update(&mut self) {")
dffs = [n for n,t in fields if t.startswith("DFF")]
out.append("        dff_setup!(self, clock, " + ", ".join(dffs) + ");")
out += L
out.append("    }\n}\n")
open(sys.argv[1],"w").write("\n".join(out))
# port list for the verif binding
open(sys.argv[2],"w").write(repr((ports_in, ports_out, ports_stat)))
