// Package terminal is the machinery every text and markdown rendering
// shares: the two styles (a terminal, markdown), tables fitted to a
// screen's width and coloured, escaping of a server's text so that a
// terminal or a forge shows it inert, markdown tidied for markdownlint,
// and the progress line on stderr. The per-command renderers in reports
// import it; none of them defines a piece of it.
package terminal
