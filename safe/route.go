package safe

import (
	"fmt"
	"strings"
	"time"
)

// The route (design §5): untrusted text reaches a writer only as a Str.
//
// Printers format their lines with Sprintf, whose format is a Lit: an
// untyped string constant converts to Lit implicitly, a string variable
// does not, so a frame's text cannot become a format without an explicit
// conversion, which the route check (route_test.go) rejects in printer
// packages. Every argument that is not already a Str is made safe by
// Sprintf itself: a string, error or Stringer is sanitised as one line, so
// a status word, a code, a cursor or an ID that forgot its Line is still
// one inert line. Multi-line text must say so with T.

// Lit is aipwatch's own words: a format, a label, a constant.
type Lit string

// Str is text that went through this package: neutralised, one line or
// multi-line as its constructor said, secrets scrubbed. Its content is
// unexported: the only ways to make one are L, T, Masked, Mask, Sprintf
// and Join.
type Str struct{ s string }

// String returns the safe text.
func (s Str) String() string { return s.s }

// Empty reports whether s is "".
func (s Str) Empty() bool { return s.s == "" }

// L is untrusted one-line text made safe (Line).
func L(s string) Str { return Str{Line(s)} }

// T is untrusted multi-line text made safe (Text): newline and tab stay.
func T(s string) Str { return Str{Text(s)} }

// Const is our own constant text as a Str.
func Const(s Lit) Str { return Str{Scrub(string(s))} }

// MaskStr is --redact's mask: Masked for non-empty content, "" for empty.
func MaskStr(s string) Str { return Str{Mask(s)} }

// Sprintf formats our own format with safe arguments (see the package
// comment of this file): Str and Lit as they are, string, error and
// fmt.Stringer through Line, numbers, booleans, durations and times as fmt
// prints them. Anything else is printed with %v and then made one safe
// line.
func Sprintf(format Lit, args ...any) Str {
	safeArgs := make([]any, len(args))
	for i, a := range args {
		safeArgs[i] = safeArg(a)
	}
	return Str{Scrub(fmt.Sprintf(string(format), safeArgs...))}
}

func safeArg(a any) any {
	switch x := a.(type) {
	case Str:
		return x.s
	case Lit:
		return string(x)
	case string:
		return Line(x)
	case time.Duration, time.Time:
		return Line(fmt.Sprint(x))
	case error:
		return Line(x.Error())
	case fmt.Stringer:
		return Line(x.String())
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64, bool:
		return x
	case nil:
		return "-"
	}
	return Line(fmt.Sprint(a))
}

// Join joins safe parts with our own separator.
func Join(parts []Str, sep Lit) Str {
	ss := make([]string, len(parts))
	for i, p := range parts {
		ss[i] = p.s
	}
	return Str{strings.Join(ss, string(sep))}
}

// Concat joins safe parts.
func Concat(parts ...Str) Str { return Join(parts, "") }

// Map applies a transformation that only adds or removes our own
// characters (Markdown escaping, trimming, a placeholder for empty text)
// and keeps the result safe: what f returns is neutralised again, as
// multi-line text when multiline, else as one line.
func (s Str) Map(f func(string) string, multiline bool) Str {
	if multiline {
		return T(f(s.s))
	}
	return L(f(s.s))
}
