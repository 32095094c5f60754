package safe

// Masked is what --redact shows in place of untrusted content: prompts,
// outputs, tool arguments and results, provider IDs and error details. It
// names no length, so a mask leaks nothing of what it hides.
const Masked = "‹redacted›"

// Mask returns Masked for non-empty content and "" for empty content, so an
// empty field stays visibly empty.
func Mask(s string) string {
	if s == "" {
		return ""
	}
	return Masked
}
