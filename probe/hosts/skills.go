package hosts

// SkillsRule is what one host that consumes the Skills extension
// (SEP-2640, io.modelcontextprotocol/skills) delivers to the model of a
// server's skills, from what it ships: its code where public, else a
// dated document; a host with no evidence is "unknown", never a guess.
// The rows are read from the embedded file only, like OAuth's.
type SkillsRule struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Versions string `json:"versions"`
	// Rule is "install" (nothing reaches the model until the user
	// installs a skill; then its name and description, and SKILL.md on
	// demand), "not_consumed" (the host calls no skills method), or
	// "unknown".
	Rule     string `json:"rule"`
	Delivers string `json:"delivers"`
	Source   string `json:"source"`
	Date     string `json:"date"`
	Sure     string `json:"sure"` // "code", "docs", "report" or "unknown"
}

// SkillsRules are the rules a SkillsRule may give.
var SkillsRules = []string{"install", "not_consumed", "unknown"}

// KnownSkills returns the embedded skills rows, in file order, a copy the
// caller may change.
func KnownSkills() []SkillsRule { return append([]SkillsRule(nil), builtin().Skills...) }
