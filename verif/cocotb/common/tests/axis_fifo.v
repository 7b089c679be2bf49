// SPDX-License-Identifier: Apache-2.0
// Test fixture for verif/cocotb/common/axis.py (not an mrnic block): a 4-entry AXI-Stream FIFO
// with tdata and tlast, registered storage, s_axis_tready low when full or in reset.
module axis_fifo (
    input  wire       clock,
    input  wire       rst,
    input  wire [7:0] s_axis_tdata,
    input  wire       s_axis_tlast,
    input  wire       s_axis_tvalid,
    output wire       s_axis_tready,
    output wire [7:0] m_axis_tdata,
    output wire       m_axis_tlast,
    output wire       m_axis_tvalid,
    input  wire       m_axis_tready
);
    reg [8:0] mem [0:3];
    reg [2:0] wr, rd;
    wire full = (wr - rd) == 3'd4;
    assign s_axis_tready = !full && !rst;
    assign m_axis_tvalid = (wr != rd) && !rst;
    assign {m_axis_tlast, m_axis_tdata} = mem[rd[1:0]];
    always @(posedge clock) begin
        if (rst) begin
            wr <= 3'd0;
            rd <= 3'd0;
        end else begin
            if (s_axis_tvalid && s_axis_tready) begin
                mem[wr[1:0]] <= {s_axis_tlast, s_axis_tdata};
                wr <= wr + 3'd1;
            end
            if (m_axis_tvalid && m_axis_tready)
                rd <= rd + 3'd1;
        end
    end
endmodule
