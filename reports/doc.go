// Package reports renders what the probe found: markdown for people and for
// committing, text for the terminal, JSON for machines. It never measures.
// Every command's result reaches the output through one interface, Result,
// made by one adapter per command (New<Command>); the machinery the
// renderers share lives below them, in reports/terminal (styles, tables,
// escaping, fitting to a screen) and reports/jsonout (the envelope, its
// schema, the JSON object builder).
package reports
