//go:build amd64 && !purego

#include "textflag.h"

DATA quotes<>+0(SB)/8, $0x2222222222222222
DATA quotes<>+8(SB)/8, $0x2222222222222222
GLOBL quotes<>(SB), RODATA|NOPTR, $16

DATA bslashes<>+0(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA bslashes<>+8(SB)/8, $0x5c5c5c5c5c5c5c5c
GLOBL bslashes<>(SB), RODATA|NOPTR, $16

// OR-ing 0x20 folds [ onto { and ] onto }, and nothing else onto either.
DATA fold20<>+0(SB)/8, $0x2020202020202020
DATA fold20<>+8(SB)/8, $0x2020202020202020
GLOBL fold20<>(SB), RODATA|NOPTR, $16

DATA lbraces<>+0(SB)/8, $0x7b7b7b7b7b7b7b7b
DATA lbraces<>+8(SB)/8, $0x7b7b7b7b7b7b7b7b
GLOBL lbraces<>(SB), RODATA|NOPTR, $16

DATA rbraces<>+0(SB)/8, $0x7d7d7d7d7d7d7d7d
DATA rbraces<>+8(SB)/8, $0x7d7d7d7d7d7d7d7d
GLOBL rbraces<>(SB), RODATA|NOPTR, $16

// LANE compares the 16 bytes at off(SI) and ORs their three 16-bit masks,
// shifted by shift, into R8 (quotes), R9 (backslashes), R10 (brackets).
#define LANE(off, shift) \
	MOVOU off(SI), X0 \
	MOVO  X0, X1 \
	PCMPEQB X8, X1 \
	PMOVMSKB X1, AX \
	SHLQ $shift, AX \
	ORQ AX, R8 \
	MOVO X0, X2 \
	PCMPEQB X9, X2 \
	PMOVMSKB X2, AX \
	SHLQ $shift, AX \
	ORQ AX, R9 \
	POR X10, X0 \
	MOVO X0, X3 \
	PCMPEQB X11, X0 \
	PCMPEQB X12, X3 \
	POR X3, X0 \
	PMOVMSKB X0, AX \
	SHLQ $shift, AX \
	ORQ AX, R10

// func blockMasks(p *[64]byte) (q, bs, br uint64)
TEXT ·blockMasks(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVOU quotes<>(SB), X8
	MOVOU bslashes<>(SB), X9
	MOVOU fold20<>(SB), X10
	MOVOU lbraces<>(SB), X11
	MOVOU rbraces<>(SB), X12
	XORQ R8, R8
	XORQ R9, R9
	XORQ R10, R10
	LANE(0, 0)
	LANE(16, 16)
	LANE(32, 32)
	LANE(48, 48)
	MOVQ R8, q+8(FP)
	MOVQ R9, bs+16(FP)
	MOVQ R10, br+24(FP)
	RET
