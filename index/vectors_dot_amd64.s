#include "textflag.h"

// func dotI8AVX2(q *int16, x *int8, n int) int32
//
// Σ q[j]·x[j] for j < n (n a positive multiple of 16): 16 int8 of x
// sign-extended to int16 (VPMOVSXBW), multiplied by 16 int16 of q and
// added in pairs into 8 int32 (VPMADDWD), accumulated (VPADDD), then
// summed across the lanes.
TEXT ·dotI8AVX2(SB), NOSPLIT, $0-28
	MOVQ q+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR Y0, Y0, Y0

loop:
	VPMOVSXBW (DI), Y1
	VPMADDWD  (SI), Y1, Y1
	VPADDD    Y1, Y0, Y0
	ADDQ      $16, DI
	ADDQ      $32, SI
	SUBQ      $16, CX
	JNZ       loop

	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4E, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xB1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, AX
	VZEROUPPER
	MOVL         AX, ret+24(FP)
	RET

// func dotI8BlockAVX2(q *int16, x *int8, n, stride, rows int, out *int32)
//
// out[r] = Σ q[j]·x[r·stride + j] for j < n and r < rows (n a positive
// multiple of 16, rows > 0). Four rows at a time: each 16 int16 of q are
// loaded once and multiplied with 16 int8 of each of the four rows
// (VPMOVSXBW, VPMADDWD) into four accumulators, which are summed across
// their lanes together (three VPHADDD and one VPADDD) and stored as four
// int32; then dotI8AVX2's loop for each of the last rows%4 rows. Integer
// sums: the results are those of dotI8Go whatever the order.
TEXT ·dotI8BlockAVX2(SB), NOSPLIT, $0-48
	MOVQ q+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ n+16(FP), DX
	MOVQ stride+24(FP), R8
	MOVQ rows+32(FP), R9
	MOVQ out+40(FP), R10

row4:
	CMPQ R9, $4
	JLT  tail
	LEAQ (DI)(R8*1), R13
	LEAQ (R13)(R8*1), R14
	LEAQ (R14)(R8*1), BX
	MOVQ SI, R11
	XORQ R12, R12
	MOVQ DX, CX
	VPXOR Y0, Y0, Y0
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VPXOR Y4, Y4, Y4

inner4:
	VMOVDQU   (R11), Y5
	VPMOVSXBW (DI)(R12*1), Y1
	VPMADDWD  Y5, Y1, Y1
	VPADDD    Y1, Y0, Y0
	VPMOVSXBW (R13)(R12*1), Y6
	VPMADDWD  Y5, Y6, Y6
	VPADDD    Y6, Y2, Y2
	VPMOVSXBW (R14)(R12*1), Y7
	VPMADDWD  Y5, Y7, Y7
	VPADDD    Y7, Y3, Y3
	VPMOVSXBW (BX)(R12*1), Y8
	VPMADDWD  Y5, Y8, Y8
	VPADDD    Y8, Y4, Y4
	ADDQ      $16, R12
	ADDQ      $32, R11
	SUBQ      $16, CX
	JNZ       inner4

	VPHADDD      Y2, Y0, Y0
	VPHADDD      Y4, Y3, Y3
	VPHADDD      Y3, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VMOVDQU      X0, (R10)
	ADDQ         $16, R10
	LEAQ         (DI)(R8*4), DI
	SUBQ         $4, R9
	JMP          row4

tail:
	TESTQ R9, R9
	JZ    done

row:
	MOVQ  SI, R11
	MOVQ  DI, R12
	MOVQ  DX, CX
	VPXOR Y0, Y0, Y0

inner:
	VPMOVSXBW (R12), Y1
	VPMADDWD  (R11), Y1, Y1
	VPADDD    Y1, Y0, Y0
	ADDQ      $16, R12
	ADDQ      $32, R11
	SUBQ      $16, CX
	JNZ       inner

	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4E, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xB1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, AX
	MOVL         AX, (R10)
	ADDQ         $4, R10
	ADDQ         R8, DI
	DECQ         R9
	JNZ          row

done:
	VZEROUPPER
	RET
