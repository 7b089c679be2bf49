// Properties of the DMA placement unit's write path, PlacementWr (hdl/src/placement.rs),
// around its generated Verilog. verif/tests/formal.rs splices this text into the generated
// top module @DUT@, just before its `endmodule`, so that the invariants can name its
// registers (st$q, cm_*$q, sl_*$q, lo$q, hi$q, cur$q, rb$q, pgb$q, fin$q, baddr$q, left$q); the
// generated logic is not changed.
// It substitutes @A@ (address bits), @B@ (bytes per beat) and @MAXB@ (max_beats), and runs
// SymbiYosys in mode prove (k-induction, Yices 2), the top module being @DUT@ itself
// (every input free in every cycle; rst assumed in the first cycle only).
//
//   window:   a byte whose wstrb is set (with wvalid) lies inside the checked window
//             [s_base, s_base + s_wlen) that arrived with its command, inside the command's
//             own [s_addr, s_addr + s_len), and below 2^A
//   bursts:   every AW has awlen + 1 <= max_beats beats and does not cross a 4 KiB boundary
//   wlast:    wlast is set exactly on a burst's awlen + 1-th beat
// The shadow registers (f_*) are the spec: the window as it arrived, and the beat address
// from the AW and W transfers. The invariants tie the unit's registers to them, so the
// induction is over every state that satisfies them, not only the reachable ones.
    localparam FA = @A@;
    localparam FB = @B@;
    localparam FMAXB = @MAXB@;
    reg f_init = 1'b1;
    always @(posedge clock) f_init <= 1'b0;
    always @* if (f_init) assume (rst);
    reg [FA:0] f_wb, f_we, f_cb, f_ce, f_beat;
    reg [8:0] f_left;
    reg f_busy;
    wire [FA:0] f_top = {1'b1, {FA{1'b0}}};
    wire [FA:0] f_lo = (f_cb > f_wb) ? f_cb : f_wb;
    wire [FA:0] f_hi0 = (f_ce < f_we) ? f_ce : f_we;
    wire [FA:0] f_hi = (f_hi0 > f_top) ? f_top : f_hi0;
    always @(posedge clock) begin
        if (rst) begin
            f_busy <= 1'b0;
        end else begin
            if (s_valid && s_ready) begin
                f_wb <= {1'b0, s_base};
                f_we <= {1'b0, s_base} + {1'b0, s_wlen};
                f_cb <= {1'b0, s_addr};
                f_ce <= {1'b0, s_addr} + s_len;
                f_busy <= 1'b1;
            end
            if (m_valid && m_ready) f_busy <= 1'b0;
            if (m_axi_awvalid && m_axi_awready) begin
                f_beat <= {1'b0, m_axi_awaddr};
                f_left <= {1'b0, m_axi_awlen} + 9'd1;
            end
            if (m_axi_wvalid && m_axi_wready) begin
                f_beat <= f_beat + FB;
                f_left <= f_left - 9'd1;
            end
        end
    end
    // the properties
    genvar f_i;
    generate
        for (f_i = 0; f_i < FB; f_i = f_i + 1) begin : f_lane
            wire [FA:0] a = f_beat + f_i;
            always @* if (!f_init && m_axi_wvalid && m_axi_wstrb[f_i]) begin
                assert (a >= f_wb && a < f_we);
                assert (a >= f_cb && a < f_ce);
                assert (a < f_top);
            end
        end
    endgenerate
    wire [FA+9:0] f_awend = m_axi_awaddr + ({1'b0, m_axi_awlen} + 9'd1) * FB - 1;
    always @* if (!f_init && m_axi_awvalid) begin
        assert ({1'b0, m_axi_awlen} + 9'd1 <= FMAXB);
        assert (f_awend[FA+9:12] == m_axi_awaddr[FA-1:12]);
    end
    always @* if (!f_init && m_axi_wvalid) assert (m_axi_wlast == (f_left == 9'd1));
    // the invariants (proven too)
    always @* if (!f_init) begin
        assert ((st$q == 3'd0) == !f_busy);
        // WIN (4) and SEL (5): the command as taken, its sums and the compares that need none
        if (st$q == 3'd4 || st$q == 3'd5) begin
            assert (cm_a$q == f_cb && cm_e$q == f_ce && cm_b$q == f_wb && cm_w$q == f_we);
            assert (cm_loa$q == (f_cb > f_wb) && cm_bga$q == (f_wb > f_cb));
            assert (cm_lenz$q == (f_ce != f_cb) && cm_wlenz$q == (f_we != f_wb));
        end
        // SEL (5): WIN's registered compares
        if (st$q == 3'd5) begin
            assert (sl_hi_w$q == (f_we < f_ce) && sl_e_gt_b$q == (f_ce > f_wb) && sl_w_gt_a$q == (f_we > f_cb));
            assert (sl_e_top$q == (f_ce > f_top) && sl_w_top$q == (f_we > f_top));
        end
        if (st$q != 3'd0 && st$q != 3'd4 && st$q != 3'd5) assert (lo$q == f_lo && hi$q == f_hi);
        assert (st$q <= 3'd5);
        // the next burst's state: cur B-aligned below hi, rb the bytes from cur to hi, pgb
        // the bytes from cur to its page's end (in AW, and in W unless the burst is the last)
        if (st$q == 3'd1 || (st$q == 3'd2 && !fin$q)) begin
            assert ((cur$q & (FB - 1)) == 0 && cur$q < hi$q);
            assert (rb$q == hi$q - cur$q);
            assert (pgb$q == 4096 - (cur$q & 4095));
        end
        if (st$q == 3'd2 && !fin$q) assert (cur$q == f_beat + f_left * FB);
        if (st$q == 3'd2) assert (baddr$q == f_beat && {1'b0, left$q} + 9'd1 == f_left && f_left != 9'd0);
        if (st$q == 3'd2) assert ((baddr$q & (FB - 1)) == 0);
    end
