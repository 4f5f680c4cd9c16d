// Package optvalue is one stored user-option value, as the options file
// ($BUNDLECTL_HOME/config/<id>.json) holds it and the runtime hands it to
// a bundle's processes.
//
// A value is a string, or, for a Claude Code string option declared
// "multiple", a list of strings, as Claude Code stores them (its settings
// hold an array, and it refuses an array for an option that is not
// multiple). A process gets JavaScript's String() of the value, as Claude
// Code passes both ${user_config.KEY} and CLAUDE_PLUGIN_OPTION_<KEY>: a
// list joined with "," (no spaces), a number option's number as String()
// writes it.
package optvalue
