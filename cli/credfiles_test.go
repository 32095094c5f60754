package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"aipwatch/model"
)

// A token_file or cacert (a context's, or --token-file, --cacert) that is
// a FIFO, a device or a huge file is refused at once with an error naming
// the key: never waited on (contexts promises 3 s), never read whole.
func TestCredentialFilesThatAreNotFiles(t *testing.T) {
	t.Parallel()
	f := newContextFixture(t, "")
	fifo := filepath.Join(f.dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	huge := filepath.Join(f.dir, "huge")
	if err := os.WriteFile(huge, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// Sparse: over any cap a token or a CA file has, and no newline in it.
	if err := os.Truncate(huge, 4<<20); err != nil {
		t.Fatal(err)
	}
	d := newAuthLog(t, nil)
	// The same daemon by another name: no context applies to it.
	other := strings.Replace(d.srv.URL, "127.0.0.1", "localhost", 1)
	for _, path := range []string{fifo, "/dev/zero", huge} {
		f.write(t, "aipwatch/config.toml", fmt.Sprintf(`current = "tok"
[contexts.tok]
url = %q
token_file = %q
[contexts.ca]
url = %q
cacert = %q
`, d.srv.URL, path, strings.Replace(d.srv.URL, "http://", "https://", 1), path))
		cases := []struct {
			args []string
			code int
			want string
		}{
			{[]string{"ls"}, model.ExitError, "context tok: token_file:"},
			{[]string{"ls", "--context", "ca"}, model.ExitError, "context ca: cacert:"},
			{[]string{"contexts"}, 0, ""},
			{[]string{"ls", "--url", other, "--token-file", path}, model.ExitError, "token file:"},
			{[]string{"ls", "--url", other, "--cacert", path}, model.ExitError, "--cacert:"},
			{[]string{"--url", other, "--token-file", path, "--output", "plain", "act_1"}, model.ExitError, "token file:"},
		}
		for _, c := range cases {
			type result struct {
				code     int
				out, err string
			}
			done := make(chan result, 1)
			go func() {
				code, out, errOut := f.run(c.args...)
				done <- result{code, out, errOut}
			}()
			select {
			case r := <-done:
				if r.code != c.code || !strings.Contains(r.out+r.err, c.want) || !strings.Contains(r.out+r.err, path) {
					t.Errorf("%s %v: exit %d, want %d with %q and the path\n%s%s", path, c.args, r.code, c.code, c.want, r.out, r.err)
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("%s %v: hung", path, c.args)
			}
		}
	}
	if n := len(d.auths()); n != 0 {
		t.Errorf("%d requests went out with a credential file that is not one", n)
	}
}
