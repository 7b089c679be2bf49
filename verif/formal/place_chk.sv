// Properties of the DMA placement unit's checks, PlaceChk (hdl/src/place_chk.rs), around its
// generated Verilog (preset tiny: 64 MR rows, 16 connections x 8 receive buffers, mtu 4096).
// verif/tests/formal.rs splices this text into the generated top module @DUT@ just before its
// `endmodule`, so that it can name the module's own wires and registers (a_v$q, b_v$q,
// r_v$q, o_v$q, a_fresh$q, h_*$q, b_*$q, r_*$q, the RAMs' ram_*$read_address / ram_*$read_data ports); the generated
// logic is not changed. SymbiYosys mode prove (k-induction, Yices 2), top = @DUT@: every
// input free in every cycle (no handshake rule is assumed: valid may drop, m_ready is
// arbitrary); rst assumed in the first cycle only.
//
// The spec (f_*) is this wrapper's own record of each request in flight, taken from the
// request port at its transfer, and of the rows it read: the RAM read ports' outputs in the
// cycle after the transfer (a BlockRam's read of cycle t, write-first), at the addresses
// asserted below. For every result in the output register (so for every m_valid result):
//   sel:    at the transfer the MR RAMs read row rkey[I-1:0], the RB RAMs row
//           {conn, ssn[R-1:0]}, the RQ RAMs row conn
//   ok:     m_ok == the spec's decision, both directions: ok exactly when len <= mtu and
//           WRITE: the row is live, its key equals the whole rkey (index and tag), its pd
//                  equals the request's, it grants remote write, base <= va and
//                  va + len <= base + len_mr (65-bit sums: nothing wraps in the compare)
//           SEND:  (ssn - head) mod 2^24 < count of the RQ row, and va + len <= rb.len
//   nak:    the NAK code is the first failing check (5 len, 1 key/tag/pd/live, 3 right,
//           2 bounds; 4 no buffer, 2 bounds), 0 when ok
//   window: ok WRITE: addr = va, [base, base + wlen) = the row's region, which contains
//           [va, va + len); ok SEND: addr = rb.addr + va mod 2^64, window = the buffer;
//           a NAK carries addr = base = wlen = 0; tag and len are the request's
//   held:   a row written after the request read it does not change its result (the spec
//           row is the one read at the transfer; the stall path h_* must keep it)
// The invariants at the end tie the pipeline registers to the spec records, so the
// induction covers every state that satisfies them (proven too).
    localparam FI = @I@;
    localparam FC = @C@;
    localparam FR = @R@;
    localparam [15:0] FMTU = @MTU@;
    reg f_init = 1'b1;
    always @(posedge clock) f_init <= 1'b0;
    always @* if (f_init) assume (rst);
    // the request in stages A, B, C and in the output register, as transferred
    reg f_av, f_bv, f_cv, f_ov, f_fresh;
    reg [31:0] f_a_pd, f_a_rkey, f_b_pd, f_b_rkey, f_c_pd, f_c_rkey, f_o_pd, f_o_rkey;
    reg f_a_send, f_b_send, f_c_send, f_o_send;
    reg [63:0] f_a_va, f_b_va, f_c_va, f_o_va;
    reg [15:0] f_a_len, f_b_len, f_c_len, f_o_len;
    reg [23:0] f_a_ssn, f_b_ssn, f_c_ssn, f_o_ssn;
    reg [7:0] f_a_tag, f_b_tag, f_c_tag, f_o_tag;
    // the rows the request in A read (held after its first cycle), B's, C's and the output's
    reg f_h_live, f_h_write, f_b_live, f_b_write, f_c_live, f_c_write, f_o_live, f_o_write;
    reg [31:0] f_h_pd, f_h_key, f_b_mpd, f_b_key, f_c_mpd, f_c_key, f_o_mpd, f_o_key;
    reg [63:0] f_h_base, f_h_mlen, f_h_raddr, f_h_rlen, f_b_base, f_b_mlen, f_b_raddr, f_b_rlen;
    reg [63:0] f_c_base, f_c_mlen, f_c_raddr, f_c_rlen, f_o_base, f_o_mlen, f_o_raddr, f_o_rlen;
    reg [23:0] f_h_head, f_b_head, f_c_head, f_o_head;
    reg [15:0] f_h_count, f_b_count, f_c_count, f_o_count;
    wire f_x_live = f_fresh ? ram_mr_live$read_data : f_h_live;
    wire f_x_write = f_fresh ? ram_mr_write$read_data : f_h_write;
    wire [31:0] f_x_pd = f_fresh ? ram_mr_pd$read_data : f_h_pd;
    wire [31:0] f_x_key = f_fresh ? ram_mr_key$read_data : f_h_key;
    wire [63:0] f_x_base = f_fresh ? ram_mr_base$read_data : f_h_base;
    wire [63:0] f_x_mlen = f_fresh ? ram_mr_len$read_data : f_h_mlen;
    wire [63:0] f_x_raddr = f_fresh ? ram_rb_addr$read_data : f_h_raddr;
    wire [63:0] f_x_rlen = f_fresh ? ram_rb_len$read_data : f_h_rlen;
    wire [23:0] f_x_head = f_fresh ? ram_rq_head$read_data : f_h_head;
    wire [15:0] f_x_count = f_fresh ? ram_rq_count$read_data : f_h_count;
    wire f_en = s_ready;
    always @(posedge clock) begin
        f_fresh <= f_en;
        f_h_live <= f_x_live; f_h_write <= f_x_write; f_h_pd <= f_x_pd; f_h_key <= f_x_key;
        f_h_base <= f_x_base; f_h_mlen <= f_x_mlen; f_h_raddr <= f_x_raddr; f_h_rlen <= f_x_rlen;
        f_h_head <= f_x_head; f_h_count <= f_x_count;
        if (f_en) begin
            f_av <= s_valid;
            f_a_pd <= s_pd; f_a_rkey <= s_rkey; f_a_send <= s_send; f_a_va <= s_va;
            f_a_len <= s_len; f_a_ssn <= s_ssn; f_a_tag <= s_tag;
            f_bv <= f_av;
            f_b_pd <= f_a_pd; f_b_rkey <= f_a_rkey; f_b_send <= f_a_send; f_b_va <= f_a_va;
            f_b_len <= f_a_len; f_b_ssn <= f_a_ssn; f_b_tag <= f_a_tag;
            f_b_live <= f_x_live; f_b_write <= f_x_write; f_b_mpd <= f_x_pd; f_b_key <= f_x_key;
            f_b_base <= f_x_base; f_b_mlen <= f_x_mlen; f_b_raddr <= f_x_raddr; f_b_rlen <= f_x_rlen;
            f_b_head <= f_x_head; f_b_count <= f_x_count;
            f_cv <= f_bv;
            f_c_pd <= f_b_pd; f_c_rkey <= f_b_rkey; f_c_send <= f_b_send; f_c_va <= f_b_va;
            f_c_len <= f_b_len; f_c_ssn <= f_b_ssn; f_c_tag <= f_b_tag;
            f_c_live <= f_b_live; f_c_write <= f_b_write; f_c_mpd <= f_b_mpd; f_c_key <= f_b_key;
            f_c_base <= f_b_base; f_c_mlen <= f_b_mlen; f_c_raddr <= f_b_raddr; f_c_rlen <= f_b_rlen;
            f_c_head <= f_b_head; f_c_count <= f_b_count;
            f_ov <= f_cv;
            f_o_pd <= f_c_pd; f_o_rkey <= f_c_rkey; f_o_send <= f_c_send; f_o_va <= f_c_va;
            f_o_len <= f_c_len; f_o_ssn <= f_c_ssn; f_o_tag <= f_c_tag;
            f_o_live <= f_c_live; f_o_write <= f_c_write; f_o_mpd <= f_c_mpd; f_o_key <= f_c_key;
            f_o_base <= f_c_base; f_o_mlen <= f_c_mlen; f_o_raddr <= f_c_raddr; f_o_rlen <= f_c_rlen;
            f_o_head <= f_c_head; f_o_count <= f_c_count;
        end
        if (rst) begin
            f_av <= 1'b0;
            f_bv <= 1'b0;
            f_cv <= 1'b0;
            f_ov <= 1'b0;
        end
    end
    // sel: the rows read are the ones the request selects
    always @* if (!f_init && s_valid && s_ready) begin
        assert (ram_mr_live$read_address == s_rkey[FI-1:0] && ram_mr_write$read_address == s_rkey[FI-1:0]);
        assert (ram_mr_pd$read_address == s_rkey[FI-1:0] && ram_mr_key$read_address == s_rkey[FI-1:0]);
        assert (ram_mr_base$read_address == s_rkey[FI-1:0] && ram_mr_len$read_address == s_rkey[FI-1:0]);
        assert (ram_rb_addr$read_address == {s_conn, s_ssn[FR-1:0]} && ram_rb_len$read_address == {s_conn, s_ssn[FR-1:0]});
        assert (ram_rq_head$read_address == s_conn && ram_rq_count$read_address == s_conn);
    end
    // the spec's decision on the output's request and rows
    wire [64:0] f_end = {1'b0, f_o_va} + {49'd0, f_o_len};
    wire [64:0] f_bend = {1'b0, f_o_base} + {1'b0, f_o_mlen};
    wire f_big = f_o_len > FMTU;
    wire f_hit = f_o_live && f_o_key == f_o_rkey && f_o_mpd == f_o_pd;
    wire f_inb = f_o_va >= f_o_base && f_end <= f_bend;
    wire [23:0] f_k = f_o_ssn - f_o_head;
    wire f_have = f_k < {8'd0, f_o_count};
    wire f_fit = f_end <= {1'b0, f_o_rlen};
    wire f_ok = !f_big && (f_o_send ? (f_have && f_fit) : (f_hit && f_o_write && f_inb));
    wire [2:0] f_nak = f_big ? 3'd5 : f_o_send ? (!f_have ? 3'd4 : !f_fit ? 3'd2 : 3'd0)
                     : (!f_hit ? 3'd1 : !f_o_write ? 3'd3 : !f_inb ? 3'd2 : 3'd0);
    wire [64:0] f_wend = {1'b0, m_base} + {1'b0, m_wlen};
    always @* if (!f_init && o_v$q) begin
        assert (m_ok == f_ok);
        assert (m_nak == f_nak);
        assert (m_tag == f_o_tag && m_len == f_o_len);
        if (m_ok && !f_o_send) begin
            assert (f_o_live && f_o_key == f_o_rkey && f_o_key[FI-1:0] == f_o_rkey[FI-1:0]);
            assert (f_o_mpd == f_o_pd && f_o_write && !f_big);
            assert (m_addr == f_o_va && m_base == f_o_base && m_wlen == f_o_mlen);
            // [va, va + len) inside [base, base + len_mr), in 65 bits
            assert ({1'b0, m_addr} >= {1'b0, m_base} && f_end <= f_wend);
            // no wrap past 2^64 unless the region itself reaches past 2^64
            if (f_bend <= 65'h1_0000_0000_0000_0000) assert (f_end <= 65'h1_0000_0000_0000_0000);
        end
        if (m_ok && f_o_send) begin
            assert (f_have && f_end <= {1'b0, f_o_rlen} && !f_big);
            assert (m_base == f_o_raddr && m_wlen == f_o_rlen && m_addr == f_o_raddr + f_o_va);
            assert (f_end <= 65'h1_0000_0000_0000_0000);
        end
        if (!m_ok) assert (m_addr == 64'd0 && m_base == 64'd0 && m_wlen == 64'd0 && m_nak != 3'd0);
    end
    // the invariants (proven too): the pipeline registers are the spec's records
    always @* if (!f_init) begin
        assert (a_v$q == f_av && b_v$q == f_bv && r_v$q == f_cv && o_v$q == f_ov && a_fresh$q == f_fresh);
        if (f_av) begin
            assert (a_pd$q == f_a_pd && a_rkey$q == f_a_rkey && a_send$q == f_a_send && a_va$q == f_a_va);
            assert (a_len$q == f_a_len && a_ssn$q == f_a_ssn && a_tag$q == f_a_tag);
            assert (a_end$q == {1'b0, f_a_va} + {49'd0, f_a_len} && a_big$q == (f_a_len > FMTU));
            if (!f_fresh) begin
                assert (h_mr_live$q == f_h_live && h_mr_write$q == f_h_write && h_mr_pd$q == f_h_pd && h_mr_key$q == f_h_key);
                assert (h_mr_base$q == f_h_base && h_mr_len$q == f_h_mlen && h_rb_addr$q == f_h_raddr && h_rb_len$q == f_h_rlen);
                assert (h_rq_head$q == f_h_head && h_rq_count$q == f_h_count);
            end
        end
        if (f_bv) begin
            assert (b_pd$q == f_b_pd && b_rkey$q == f_b_rkey && b_send$q == f_b_send && b_va$q == f_b_va);
            assert (b_len$q == f_b_len && b_ssn$q == f_b_ssn && b_tag$q == f_b_tag);
            assert (b_end$q == {1'b0, f_b_va} + {49'd0, f_b_len} && b_big$q == (f_b_len > FMTU));
            assert (b_mr_live$q == f_b_live && b_mr_write$q == f_b_write && b_mr_pd$q == f_b_mpd && b_mr_key$q == f_b_key);
            assert (b_mr_base$q == f_b_base && b_mr_len$q == f_b_mlen && b_rb_addr$q == f_b_raddr && b_rb_len$q == f_b_rlen);
            assert (b_rq_head$q == f_b_head && b_rq_count$q == f_b_count);
        end
        if (f_cv) begin
            // stage C holds the compares' flags, the two ends of the region bound and the window's
            // candidates of its request
            assert (r_tag$q == f_c_tag && r_len$q == f_c_len && r_big$q == (f_c_len > FMTU) && r_send$q == f_c_send);
            assert (r_hit$q == (f_c_live && f_c_key == f_c_rkey && f_c_mpd == f_c_pd) && r_write$q == f_c_write);
            assert (r_lo$q == (f_c_va >= f_c_base));
            assert (r_end$q == {1'b0, f_c_va} + {49'd0, f_c_len} && r_bend$q == {1'b0, f_c_base} + {1'b0, f_c_mlen});
            assert (r_have$q == ((f_c_ssn - f_c_head) < {8'd0, f_c_count}));
            assert (r_fit$q == ({1'b0, f_c_va} + {49'd0, f_c_len} <= {1'b0, f_c_rlen}));
            assert (r_addr$q == (f_c_send ? f_c_raddr + f_c_va : f_c_va));
            assert (r_base$q == (f_c_send ? f_c_raddr : f_c_base) && r_wlen$q == (f_c_send ? f_c_rlen : f_c_mlen));
        end
    end
`ifdef F_ROWS
    // rows (bounded: mode bmc, see verif/tests/formal.rs): the record above, the RAM read
    // ports' output in the cycle after the transfer, is the row as the configuration port
    // last wrote it (a write of the transfer's own cycle included: write-first). One tracked
    // row per table, each index an anyconst (so every row is covered); the wrapper shadows
    // the writes to it. A row not written since reset holds power-up data and is not claimed
    // (software writes every row before the first request).
    (* anyconst *) reg [FI-1:0] f_mi;
    (* anyconst *) reg [FC+FR-1:0] f_bi;
    (* anyconst *) reg [FC-1:0] f_qi;
    reg f_mk = 1'b0, f_bk = 1'b0, f_qk = 1'b0;
    reg f_t_live, f_t_write;
    reg [31:0] f_t_pd, f_t_key;
    reg [63:0] f_t_base, f_t_mlen, f_t_raddr, f_t_rlen;
    reg [23:0] f_t_head;
    reg [15:0] f_t_count;
    wire f_cw = s_cfg_valid && s_cfg_ready;
    wire f_wm = f_cw && s_cfg_table == 2'd0 && s_cfg_key[FI-1:0] == f_mi;
    wire f_wb = f_cw && s_cfg_table == 2'd1 && s_cfg_row == f_bi;
    wire f_wq = f_cw && s_cfg_table == 2'd2 && s_cfg_row[FC-1:0] == f_qi && s_cfg_count <= (1 << FR);
    // the shadow as the transfer of this cycle sees it (its own cycle's write included)
    wire f_n_mk = f_mk || f_wm, f_n_bk = f_bk || f_wb, f_n_qk = f_qk || f_wq;
    wire f_n_live = f_wm ? s_cfg_live : f_t_live, f_n_write = f_wm ? s_cfg_write : f_t_write;
    wire [31:0] f_n_pd = f_wm ? s_cfg_pd : f_t_pd, f_n_key = f_wm ? s_cfg_key : f_t_key;
    wire [63:0] f_n_base = f_wm ? s_cfg_base : f_t_base, f_n_mlen = f_wm ? s_cfg_len : f_t_mlen;
    wire [63:0] f_n_raddr = f_wb ? s_cfg_base : f_t_raddr, f_n_rlen = f_wb ? s_cfg_len : f_t_rlen;
    wire [23:0] f_n_head = f_wq ? s_cfg_head : f_t_head;
    wire [15:0] f_n_count = f_wq ? s_cfg_count : f_t_count;
    // what the request transferred last cycle should read
    reg f_rm, f_rb, f_rq;
    reg f_r_live, f_r_write;
    reg [31:0] f_r_pd, f_r_key;
    reg [63:0] f_r_base, f_r_mlen, f_r_raddr, f_r_rlen;
    reg [23:0] f_r_head;
    reg [15:0] f_r_count;
    always @(posedge clock) begin
        f_mk <= f_n_mk; f_bk <= f_n_bk; f_qk <= f_n_qk;
        f_t_live <= f_n_live; f_t_write <= f_n_write; f_t_pd <= f_n_pd; f_t_key <= f_n_key;
        f_t_base <= f_n_base; f_t_mlen <= f_n_mlen; f_t_raddr <= f_n_raddr; f_t_rlen <= f_n_rlen;
        f_t_head <= f_n_head; f_t_count <= f_n_count;
        f_rm <= s_valid && s_ready && s_rkey[FI-1:0] == f_mi && f_n_mk;
        f_rb <= s_valid && s_ready && {s_conn, s_ssn[FR-1:0]} == f_bi && f_n_bk;
        f_rq <= s_valid && s_ready && s_conn == f_qi && f_n_qk;
        f_r_live <= f_n_live; f_r_write <= f_n_write; f_r_pd <= f_n_pd; f_r_key <= f_n_key;
        f_r_base <= f_n_base; f_r_mlen <= f_n_mlen; f_r_raddr <= f_n_raddr; f_r_rlen <= f_n_rlen;
        f_r_head <= f_n_head; f_r_count <= f_n_count;
    end
    always @* if (!f_init) begin
        if (f_rm) assert (f_fresh && f_av && f_x_live == f_r_live && f_x_write == f_r_write && f_x_pd == f_r_pd
                          && f_x_key == f_r_key && f_x_base == f_r_base && f_x_mlen == f_r_mlen);
        if (f_rb) assert (f_x_raddr == f_r_raddr && f_x_rlen == f_r_rlen);
        if (f_rq) assert (f_x_head == f_r_head && f_x_count == f_r_count);
    end
`endif
