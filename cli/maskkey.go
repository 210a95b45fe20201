package cli

import (
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// MaskKeyEnv names a passphrase masked tokens are derived from instead of the
// key file: a team that shares it gets the same tokens on every machine, so that
// masked dumps compare across machines as well as across days.
const MaskKeyEnv = "CHUNKVIEW_MASK_KEY"

// maskKeyFile is where, under the user's configuration directory, the key that
// masked tokens are derived from is kept.
const maskKeyFile = "chunkview/mask-key"

// LoadMaskKey returns the key masked tokens (<masked:1a2b3c4d>) are derived
// from, so that the same value gets the same token in every run: a masked dump
// taken today compares with one taken last week. It is MaskKeyEnv's passphrase
// when set, else the key in configDir()/chunkview/mask-key, made of 32 random
// bytes and written (mode 0600) the first time. A token is an HMAC under that
// key, so whoever holds a dump but not the key cannot try candidate secrets
// against it. On an error (no home, a read-only one) the caller keeps a key of
// the process's own, and tokens are then stable within one run only.
func LoadMaskKey(getenv func(string) string, configDir func() (string, error)) ([]byte, error) {
	if p := getenv(MaskKeyEnv); p != "" {
		sum := sha256.Sum256([]byte("chunkview mask key\x00" + p))
		return sum[:], nil
	}
	dir, err := configDir()
	if err != nil {
		return nil, fmt.Errorf("find the configuration directory for the mask key: %w", err)
	}
	path := filepath.Join(dir, maskKeyFile)
	key, err := os.ReadFile(path)
	switch {
	case err == nil && len(key) >= 16:
		return key, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("read the mask key %s: %w", path, err)
	}
	key = make([]byte, 32)
	rand.Read(key) // never fails since Go 1.24
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("keep the mask key: %w", err)
	}
	// O_EXCL: of two chunkviews starting at once, one writes the key and the
	// other reads it.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		if key, err = os.ReadFile(path); err == nil && len(key) < 16 {
			err = fmt.Errorf("it holds %d bytes: delete it to have a new one made", len(key))
		}
		if err != nil {
			return nil, fmt.Errorf("read the mask key %s: %w", path, err)
		}
		return key, nil
	}
	if err != nil {
		return nil, fmt.Errorf("keep the mask key: %w", err)
	}
	if _, err := f.Write(key); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("keep the mask key %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("keep the mask key %s: %w", path, err)
	}
	return key, nil
}
