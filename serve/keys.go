package serve

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
	"unicode"

	gossh "golang.org/x/crypto/ssh"

	"aipwatch/config"
)

// Who may connect (design §15): public keys only, from OpenSSH
// authorized_keys files, each key's comment naming its person. A key of
// the authorized-keys file watches, a key of the operator-keys file also
// cancels. The files are read as the config file is (config.ReadTrusted:
// a regular file no one else may write, in a folder no one else may write,
// of a bounded size), at start and again whenever one changes: a person
// added may connect at once, and a person removed loses the sessions open.

// Role is what a session may do.
type Role string

// The roles.
const (
	RoleWatch    Role = "watch"    // everything read-only: no cancel, no reconcile read
	RoleOperator Role = "operator" // watch, and cancel (and reconcile's read)
)

// CanCancel reports whether the role may cancel.
func (r Role) CanCancel() bool { return r == RoleOperator }

// Person is one key, as its file names it.
type Person struct {
	Name        string // the key's comment
	Fingerprint string // SHA256:…, as ssh-keygen -l prints it
	Role        Role
	File        string // the file that grants it
	Line        int
}

// maxKeysFile bounds an authorized_keys file: a key is a line of under a
// kilobyte, a team a few hundred lines.
const maxKeysFile = 1 << 20

// maxName bounds a person's name (the key's comment).
const maxName = 64

// keyring is who may connect, re-read when a file changes.
type keyring struct {
	watchPath, operatorPath string

	mu     sync.Mutex
	byKey  map[string]Person // by the key's wire bytes
	stamps [2]fileStamp      // the files as last read
	err    error             // the last read's failure (nobody may connect then)
}

// fileStamp tells a file changed since it was read.
type fileStamp struct {
	size    int64
	mod     time.Time
	ino     uint64
	missing bool
}

func stampOf(path string) fileStamp {
	if path == "" {
		return fileStamp{missing: true}
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{missing: true}
	}
	return fileStamp{size: fi.Size(), mod: fi.ModTime(), ino: inode(fi)}
}

// newKeyring reads the two files; an error names the file and line. At
// least one of them must be given, and they must grant one key at least.
func newKeyring(watchPath, operatorPath string) (*keyring, error) {
	if watchPath == "" && operatorPath == "" {
		return nil, errors.New("no keys: name an authorized-keys file (--authorized-keys, --operator-keys, or serve.authorized_keys in the config file)")
	}
	k := &keyring{watchPath: watchPath, operatorPath: operatorPath}
	if _, err := k.reload(); err != nil {
		return nil, err
	}
	return k, nil
}

// reload reads the files again when one changed since the last read; it
// reports whether it read them. A file that cannot be used leaves nobody
// with a key until it is fixed (err says why): a removed person must not
// keep access because the file was saved with a mistake.
func (k *keyring) reload() (bool, error) {
	stamps := [2]fileStamp{stampOf(k.watchPath), stampOf(k.operatorPath)}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.byKey != nil && stamps == k.stamps {
		return false, k.err
	}
	k.stamps = stamps
	byKey, err := readKeys(k.watchPath, k.operatorPath)
	k.err = err
	if err != nil {
		k.byKey = map[string]Person{}
		return true, err
	}
	k.byKey = byKey
	return true, nil
}

// lookup is the person of key, if a file grants it.
func (k *keyring) lookup(key gossh.PublicKey) (Person, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	p, ok := k.byKey[string(key.Marshal())]
	return p, ok
}

// people are everyone the files grant.
func (k *keyring) people() []Person {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := make([]Person, 0, len(k.byKey))
	for _, p := range k.byKey {
		out = append(out, p)
	}
	return out
}

// readKeys reads both files: the operators' grants win over the watchers'
// for a key in both.
func readKeys(watchPath, operatorPath string) (map[string]Person, error) {
	byKey := map[string]Person{}
	for _, f := range []struct {
		path string
		role Role
	}{{watchPath, RoleWatch}, {operatorPath, RoleOperator}} {
		if f.path == "" {
			continue
		}
		people, err := readKeysFile(f.path, f.role)
		if err != nil {
			return nil, err
		}
		for wire, p := range people {
			byKey[wire] = p
		}
	}
	if len(byKey) == 0 {
		return nil, errors.New("the authorized-keys files grant no key: nobody could connect")
	}
	return byKey, nil
}

// readKeysFile reads one authorized_keys file, checked as the config file
// is. Every line is a key with a comment that names its person; options
// (from=, command=, restrict, cert-authority, …) are refused rather than
// ignored, since serve would not honour them.
func readKeysFile(path string, role Role) (map[string]Person, error) {
	b, err := config.ReadTrusted(path, maxKeysFile, "it decides who may watch or cancel")
	if err != nil {
		return nil, err
	}
	out := map[string]Person{}
	for i, line := range bytes.Split(b, []byte("\n")) {
		n := i + 1
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		key, comment, options, rest, err := gossh.ParseAuthorizedKey(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: not an OpenSSH public key line: %v", path, n, err)
		}
		if len(rest) != 0 {
			return nil, fmt.Errorf("%s:%d: more than one key on the line", path, n)
		}
		if len(options) > 0 {
			return nil, fmt.Errorf("%s:%d: key options (%s) are not supported: list the key without them", path, n, strings.Join(options, ","))
		}
		if _, ok := key.(*gossh.Certificate); ok {
			return nil, fmt.Errorf("%s:%d: certificates are not supported: list the person's public key", path, n)
		}
		name, err := personName(comment)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		wire := string(key.Marshal())
		if prev, dup := out[wire]; dup {
			return nil, fmt.Errorf("%s:%d: the key of line %d again (%s)", path, n, prev.Line, prev.Name)
		}
		out[wire] = Person{Name: name, Fingerprint: gossh.FingerprintSHA256(key), Role: role, File: path, Line: n}
	}
	return out, nil
}

// personName checks a key's comment: it names the person in every cancel
// reason and audit line, so it is one short printable line.
func personName(comment string) (string, error) {
	name := strings.TrimSpace(comment)
	switch {
	case name == "":
		return "", errors.New("the key has no comment: the comment names the person (ssh-keygen -C alice@example.org)")
	case len(name) > maxName:
		return "", fmt.Errorf("the key's comment is over %d bytes: it names the person", maxName)
	}
	for _, r := range name {
		if !unicode.IsPrint(r) {
			return "", errors.New("the key's comment holds a character that is not printable")
		}
	}
	return name, nil
}
