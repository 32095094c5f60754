// Package transcript is the transcript of the TUI: one block per model
// item (then the notes, anomalies and reconcile advice), each block's
// lines cached by what they were drawn from, the line index, the search
// state (haystacks, matches, the current match) and the Markdown jobs of
// finished messages. It draws with render/ (styles, wrapping, Markdown,
// highlight), which is stateless, and reads model/; ui/ owns the program
// and delegates to it.
package transcript
