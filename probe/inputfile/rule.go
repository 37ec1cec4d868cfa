package inputfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// The rule every input file passes, in one place (resolve), and what a
// refusal says. A pull request controls what its checkout commits, and
// nothing else: not .git/ (actions/checkout writes the job's token to
// .git/config as http.https://github.com/.extraheader), and not a file an
// earlier CI step wrote into the work tree (.env, a cloud login's
// credentials file), which git does not track. A path is read only when
// no component of it, as given or resolved, is a .git folder (or the git
// folder a .git file names), and a symlink on the way is followed only to
// a file git tracks in the link's own work tree. git itself refuses to
// follow links for the in-tree files it reads (.gitattributes, .mailmap)
// for the same reason.

// gitRule is the refusal of a path in or through .git.
const gitRule = "is inside a .git folder, or reaches one through a symlink: mcpprobe reads nothing under .git," +
	" which is no content of a pull request and holds the CI job's token (actions/checkout writes it to .git/config)"

// untracked is the refusal of a link to a file that is not committed.
const untracked = "is a symlink to a file git does not track" + only +
	", and follows a link only to a file committed to the link's own checkout:" +
	" an untracked file (.env, a credentials file an earlier CI step wrote) is not the pull request's;" +
	" give the path of the file it points to"

// resolve applies the rule to path, whose Lstat is st, and returns the
// fully resolved path to open, whether a link in the checkout (or, outside
// one, the last component) was followed to it, or an *Error. Nothing of a
// target is named.
func resolve(path string, st os.FileInfo) (_ string, linked bool, _ error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false, err
	}
	if hasGit(abs) {
		return "", false, &Error{Path: path, Why: gitRule}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if st.Mode()&os.ModeSymlink != 0 {
			return "", false, &Error{Path: path, Why: "is a symlink whose target cannot be read"}
		}
		return "", false, err
	}
	if hasGit(real) {
		return "", false, &Error{Path: path, Why: gitRule}
	}
	_, linkGit := treeOf(filepath.Dir(abs))
	realTree, realGit := treeOf(filepath.Dir(real))
	for _, g := range []string{linkGit, realGit} {
		if g != "" && within(real, g) {
			return "", false, &Error{Path: path, Why: gitRule}
		}
	}
	linked, linkRoot := linkOn(abs)
	if !linked {
		return real, false, nil
	}
	// A link was followed: within the checkout, and only to what it commits.
	if linkRoot != "" && !within(real, linkRoot) {
		return "", false, &Error{Path: path, Why: symlink}
	}
	// A checkout an earlier step made inside this one (a second, private
	// repository) is not the pull request's either.
	if realTree == "" || realGit == "" || (linkRoot != "" && realTree != linkRoot) || !tracked(realGit, realTree, real) {
		return "", false, &Error{Path: path, Why: untracked}
	}
	return real, true, nil
}

// linkOn reports whether a symlink on the clean absolute path p is followed
// in a work tree (root is that tree, resolved), or is p itself outside one
// (root ""). A link in a folder above any checkout (/home on /var/home,
// macOS's /tmp) is the machine's, not a pull request's, and does not count.
func linkOn(p string) (linked bool, root string) {
	for i := 1; i <= len(p); i++ {
		if i < len(p) && p[i] != filepath.Separator {
			continue
		}
		prefix := p[:i]
		st, err := os.Lstat(prefix)
		if err != nil || st.Mode()&os.ModeSymlink == 0 {
			continue
		}
		dir, err := filepath.EvalSymlinks(filepath.Dir(prefix))
		if err != nil {
			return true, ""
		}
		tree, _ := treeOf(dir)
		if tree != "" {
			return true, tree
		}
		if prefix == p {
			return true, ""
		}
	}
	return false, ""
}

// hasGit reports whether a component of the clean absolute path p is .git.
func hasGit(p string) bool {
	for _, c := range strings.Split(filepath.ToSlash(p), "/") {
		if strings.EqualFold(c, ".git") {
			return true
		}
	}
	return false
}

// treeOf finds the work tree holding dir, the nearest folder above it with
// a .git, and that tree's git folder: .git itself, or the folder a .git
// file names (a worktree's, a submodule's, --separate-git-dir's), resolved.
// Both are "" outside any work tree; gitDir is "" when a .git file cannot
// be read.
func treeOf(dir string) (tree, gitDir string) {
	for d := dir; ; {
		g := filepath.Join(d, ".git")
		if st, err := os.Lstat(g); err == nil {
			switch {
			case st.IsDir():
				return d, g
			case st.Mode().IsRegular():
				return d, gitFileDir(d, g)
			}
			return d, ""
		}
		up := filepath.Dir(d)
		if up == d {
			return "", ""
		}
		d = up
	}
}

// gitFileDir reads a .git file's "gitdir: PATH", relative to tree.
func gitFileDir(tree, file string) string {
	b, err := readRegular(file, 4<<10)
	if err != nil {
		return ""
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	p, ok := strings.CutPrefix(strings.TrimSpace(string(line)), "gitdir:")
	if !ok {
		return ""
	}
	p = strings.TrimSpace(p)
	if !filepath.IsAbs(p) {
		p = filepath.Join(tree, p)
	}
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	return r
}

// tracked reports whether file, inside the resolved tree, is a file its
// index lists, committed as a regular file (stage 0, not intent-to-add, not
// skip-worktree). Anything the index does not say plainly is untracked.
func tracked(gitDir, tree, file string) bool {
	rel, err := filepath.Rel(tree, file)
	if err != nil || !within(file, tree) {
		return false
	}
	idx, err := readRegular(filepath.Join(gitDir, "index"), MaxIndex)
	if err != nil {
		return false
	}
	return indexHas(idx, filepath.ToSlash(rel))
}
