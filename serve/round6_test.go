package serve

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"aipwatch/model"
	"aipwatch/safe"
	"aipwatch/ui"
)

var gateT0 = time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)

// design §15: connections open at once are bounded: at the bound the next
// one is refused (whatever the address), and one closed makes room.
func TestGateBoundsOpenConnections(t *testing.T) {
	g := newGate(100, 2)
	for i, a := range []string{"10.0.0.1:1", "10.0.0.2:1"} {
		if why, _ := g.admit(&fakeAddr{a}, gateT0); why != "" {
			t.Fatalf("connection %d refused: %s", i+1, why)
		}
	}
	if why, _ := g.admit(&fakeAddr{"10.0.0.3:1"}, gateT0); !strings.Contains(why, "as many connections open") {
		t.Fatalf("a connection past the bound: %q", why)
	}
	g.done()
	if why, _ := g.admit(&fakeAddr{"10.0.0.3:1"}, gateT0); why != "" {
		t.Fatalf("refused once one closed: %s", why)
	}
}

// design §15: an operator's reconcile read is recorded in the audit log
// before it is sent, and not sent when the log cannot record it; a
// watcher has no reconcile read at all.
func TestReconcileReadAuditedFirst(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	au, err := openAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{audit: au, log: io.Discard}
	si := &sessionInfo{id: 3, person: Person{Name: "olga", Fingerprint: "SHA256:y", Role: RoleOperator}, remote: "10.0.0.2:7"}
	reads := 0
	var seen string
	f := ui.ReconcileFunc(func(*model.Action) (string, func(context.Context) string) {
		return "read it back", func(context.Context) string {
			reads++
			b, _ := os.ReadFile(path)
			seen = string(b)
			return "read"
		}
	})
	what, read := s.auditedReconcile(si, f)(model.NewAction("act_r_1"))
	if what != "read it back" || read == nil {
		t.Fatalf("what %q, read %v", what, read != nil)
	}
	if got := read(t.Context()); got != "read" || !strings.Contains(seen, `"event":"reconcile"`) || !strings.Contains(seen, `"action":"act_r_1"`) ||
		!strings.Contains(seen, `"name":"olga"`) {
		t.Fatalf("read %q; the audit log when it was sent: %q", got, seen)
	}
	_ = au.close()
	if got := read(t.Context()); reads != 1 || !strings.HasPrefix(got, "not sent: the audit log could not record it") {
		t.Fatalf("a read the audit log could not record: %q (%d reads)", got, reads)
	}
}

// design §15: a key moved from the operators' file to the watchers' is no
// longer granted its operator's session (a role taken back), nor is a
// removed key; the same role still is.
func TestStillGrantedNeedsTheSameRole(t *testing.T) {
	dir := t.TempDir()
	k := newSigner(t)
	w, o := filepath.Join(dir, "w"), filepath.Join(dir, "o")
	other := newSigner(t)
	writeKeys(t, w, keyLine(k, "ana@example.org"))
	writeKeys(t, o, keyLine(k, "ana@example.org"))
	kr, err := newKeyring(w, o)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{keys: kr, log: io.Discard}
	fp := gossh.FingerprintSHA256(k.PublicKey())
	op := &liveSession{info: &sessionInfo{person: Person{Name: "ana@example.org", Fingerprint: fp, Role: RoleOperator}}}
	watcher := &liveSession{info: &sessionInfo{person: Person{Name: "ana@example.org", Fingerprint: fp, Role: RoleWatch}}}
	if !s.stillGranted(op) {
		t.Fatal("the operator is not granted")
	}
	writeKeys(t, o, keyLine(other, "bo@example.org")) // ana is a watcher only now
	if reread, err := kr.reload(); !reread || err != nil {
		t.Fatalf("reload: %v %v", reread, err)
	}
	if s.stillGranted(op) {
		t.Fatal("an operator's session kept after the operator's grant was taken back")
	}
	if !s.stillGranted(watcher) {
		t.Fatal("a watcher's session lost while the key is still a watcher's")
	}
}

// A person's name (the key's comment) is one short line: 64 bytes taken,
// 65 refused (docs/serve.md: it names the person in every audit line).
func TestKeyCommentBound(t *testing.T) {
	if _, err := personName(strings.Repeat("n", 64)); err != nil {
		t.Fatalf("64 bytes: %v", err)
	}
	if _, err := personName(strings.Repeat("n", 65)); err == nil {
		t.Fatal("a 65-byte name taken")
	}
}

// An action ID given to ssh goes into a URL path and onto the screen: act_
// and AIP's characters, at most 128 bytes.
func TestValidActionIDBound(t *testing.T) {
	for id, want := range map[string]bool{
		"act_" + strings.Repeat("a", 124): true, "act_" + strings.Repeat("a", 125): false,
		"act_x-Y_9": true, "act_": false, "act_x/y": false, "act_x y": false, "act_é": false, "x_act": false,
	} {
		if validActionID(id) != want {
			t.Errorf("validActionID(%q) = %v", id, !want)
		}
	}
}

// design §15: at most --conn-rate connections a minute from one address,
// however long it was quiet: a quiet minute saves no burst (an address's
// allowance refills up to the rate, never past it).
func TestConnRateNoBurstAfterQuiet(t *testing.T) {
	g := newGate(3, 100)
	addr := &fakeAddr{"10.1.2.3:4000"}
	if why, _ := g.admit(addr, gateT0); why != "" {
		t.Fatal(why)
	}
	g.done()
	later := gateT0.Add(59 * time.Second)
	for i := range 3 {
		if why, _ := g.admit(addr, later); why != "" {
			t.Fatalf("connection %d after a quiet minute refused: %s", i+1, why)
		}
		g.done()
	}
	if why, _ := g.admit(addr, later); why == "" {
		t.Fatal("a fourth connection in the minute taken after a quiet minute")
	}
}

// The two copies of the rule of AIP's ID characters agree: an ID given to
// ssh is taken exactly when completion and the console's y would take it
// (safe.IDWord), whatever the character.
func TestValidActionIDAgreesWithIDWord(t *testing.T) {
	for r := rune(0); r < 0x250; r++ {
		id := "act_x" + string(r) + "y"
		if validActionID(id) != safe.IDWord(id) {
			t.Errorf("%q: serve %v, safe.IDWord %v", id, validActionID(id), safe.IDWord(id))
		}
	}
}
