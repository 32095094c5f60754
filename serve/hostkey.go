package serve

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	gossh "golang.org/x/crypto/ssh"

	"aipwatch/config"
	"aipwatch/safe"
)

// The host key: an ed25519 key in OpenSSH's format, made on first start
// (mode 0600, created new, never replacing a file) and read on later
// starts as ssh reads a private key: a regular file of the user's that no
// one else may read or write.

// maxHostKey bounds the host key file (an ed25519 key is about 400 bytes).
const maxHostKey = 64 << 10

// HostKeyName is the host key's file in the state directory.
const HostKeyName = "ssh_host_ed25519_key"

// loadHostKey reads the host key at path, or makes it when there is no
// file: created reports that it was made.
func loadHostKey(path string) (signer gossh.Signer, created bool, err error) {
	b, err := config.ReadFile(path, maxHostKey, func(fi os.FileInfo) error {
		if fi.Mode().Perm()&0o077 != 0 {
			return fmt.Errorf("%s may be read by group or others (mode %04o): it is the server's private key; chmod 600 it", path, fi.Mode().Perm())
		}
		if owner, ok := config.OwnerOf(fi); ok && owner != os.Getuid() {
			return fmt.Errorf("%s belongs to another user (uid %d): it is the server's private key", path, owner)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		signer, err = makeHostKey(path)
		return signer, err == nil, err
	}
	if err != nil {
		return nil, false, err
	}
	signer, err = gossh.ParsePrivateKey(b)
	if err != nil {
		return nil, false, fmt.Errorf("%s: not an unencrypted OpenSSH private key: %v", path, err)
	}
	return signer, false, nil
}

// makeHostKey writes a new ed25519 key at path (its folder made 0700 when
// missing).
func makeHostKey(path string) (gossh.Signer, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	block, err := gossh.MarshalPrivateKey(priv, "aipwatch serve host key")
	if err != nil {
		return nil, err
	}
	if err := safe.CreatePrivate(path, pem.EncodeToMemory(block)); err != nil {
		return nil, fmt.Errorf("host key %s: %w", path, err)
	}
	return gossh.NewSignerFromKey(priv)
}
