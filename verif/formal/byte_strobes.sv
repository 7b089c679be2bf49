// Properties of prim::ByteStrobes<B> (hdl/src/prim/strobes.rs), around its generated
// Verilog. verif/tests/formal.rs substitutes @DUT@ (the generated module) and @B@ (bytes
// per beat) and runs SymbiYosys (mode prove, Yices 2). The block has no state, so the proof is
// over every value of the inputs at once: 2^96 input combinations, no bound involved.
//
//   safety:       a byte whose strobe is set lies inside [lo, hi)
//   completeness: a byte of the beat inside [lo, hi) has its strobe set
//   alignment:    the low log2(B) address bits do not change the strobes
module props (input [31:0] addr, input [31:0] lo, input [31:0] hi, input [31:0] addr2);
    localparam B = @B@;
    wire [B-1:0] strb;
    wire [B-1:0] strb2;
    @DUT@ dut (.addr(addr), .lo(lo), .hi(hi), .strb(strb));
    // a second copy at another address of the same beat
    @DUT@ dut2 (.addr((addr & ~(B - 1)) | (addr2 & (B - 1))), .lo(lo), .hi(hi), .strb(strb2));
    wire [31:0] base = addr & ~(B - 1);
    genvar i;
    generate
        for (i = 0; i < B; i = i + 1) begin : lane
            wire [31:0] a = base + i;
            always @* begin
                if (strb[i]) assert (a >= lo && a < hi);
                if (a >= lo && a < hi) assert (strb[i]);
            end
        end
    endgenerate
    always @* assert (strb2 == strb);
endmodule
