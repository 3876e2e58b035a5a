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
