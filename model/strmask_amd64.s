//go:build amd64 && !purego

#include "textflag.h"

DATA quotes<>+0(SB)/8, $0x2222222222222222
DATA quotes<>+8(SB)/8, $0x2222222222222222
GLOBL quotes<>(SB), RODATA|NOPTR, $16

DATA bslashes<>+0(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA bslashes<>+8(SB)/8, $0x5c5c5c5c5c5c5c5c
GLOBL bslashes<>(SB), RODATA|NOPTR, $16

// A byte is below 0x20 exactly when its top three bits are clear.
DATA top3<>+0(SB)/8, $0xe0e0e0e0e0e0e0e0
DATA top3<>+8(SB)/8, $0xe0e0e0e0e0e0e0e0
GLOBL top3<>(SB), RODATA|NOPTR, $16

// LANE compares the 16 bytes at off(SI) and ORs their four 16-bit masks,
// shifted by shift, into R8 (quotes), R9 (backslashes), R10 (control
// characters) and R11 (bytes outside ASCII: their top bit, as it is).
#define LANE(off, shift) \
	MOVOU off(SI), X0 \
	MOVO X0, X1 \
	PCMPEQB X8, X1 \
	PMOVMSKB X1, AX \
	SHLQ $shift, AX \
	ORQ AX, R8 \
	MOVO X0, X2 \
	PCMPEQB X9, X2 \
	PMOVMSKB X2, AX \
	SHLQ $shift, AX \
	ORQ AX, R9 \
	PMOVMSKB X0, AX \
	SHLQ $shift, AX \
	ORQ AX, R11 \
	PAND X10, X0 \
	PCMPEQB X11, X0 \
	PMOVMSKB X0, AX \
	SHLQ $shift, AX \
	ORQ AX, R10

// func strMasks(p *[64]byte) (q, bs, ctl, hi uint64)
TEXT ·strMasks(SB), NOSPLIT, $0-40
	MOVQ p+0(FP), SI
	MOVOU quotes<>(SB), X8
	MOVOU bslashes<>(SB), X9
	MOVOU top3<>(SB), X10
	PXOR X11, X11
	XORQ R8, R8
	XORQ R9, R9
	XORQ R10, R10
	XORQ R11, R11
	LANE(0, 0)
	LANE(16, 16)
	LANE(32, 32)
	LANE(48, 48)
	MOVQ R8, q+8(FP)
	MOVQ R9, bs+16(FP)
	MOVQ R10, ctl+24(FP)
	MOVQ R11, hi+32(FP)
	RET
