package main

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/fleetgate/fleetgate/internal/store"
	"github.com/fleetgate/fleetgate/server"
)

// A backup is a gzipped tar of a data directory: the store first (a snapshot, not the live
// file), then the other files (keys, identities, recordings, archived resources), then a
// manifest with every file's SHA-256, which restore checks before it puts anything back.
const (
	manifestName  = "fleetgate-backup.json"
	backupFormat  = 1
	storeFileName = "fleetgate.db"
)

type backupManifest struct {
	Format    int          `json:"format"`
	Fleetgate string       `json:"fleetgate"` // the version that made it
	Created   time.Time    `json:"created"`
	Schema    int          `json:"schema"` // of the store it holds
	Files     []backupFile `json:"files"`
}

type backupFile struct {
	Path   string `json:"path"` // slash-separated, relative to the data directory
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// notBackedUp reports whether a file of the data directory stays out of a backup: the live
// store (its snapshot goes in instead), the lock, the agent's log (journald and logrotate
// keep logs; it is no state) and the temporary files of atomic writes.
func notBackedUp(rel string) bool {
	base := filepath.Base(rel)
	switch {
	case rel == storeFileName, strings.HasPrefix(rel, storeFileName+"-"), rel == lockFile:
		return true
	case rel == filepath.Base(server.LogFile("")), strings.HasPrefix(rel, filepath.Base(server.LogFile(""))+"."):
		return true
	case strings.HasSuffix(base, ".tmp"), strings.HasPrefix(base, ".") && strings.Contains(base, ".tmp-"):
		return true
	}
	return false
}

// bulkDirs hold the large files that --store-only leaves out.
var bulkDirs = []string{filepath.Base(server.RecordingsDir("")), filepath.Base(server.ResourceDir(""))}

func runBackup(ctx context.Context, args []string, stdout io.Writer) error {
	flags := newFlagSet("backup")
	data := flags.String("data", "./fleetgate-data", "data directory of the gateway to back up (it may be running)")
	out := flags.String("out", "", "the backup file to write, e.g. fleetgate-2026-11-27.tar.gz (required; mode 0600: it holds keys)")
	db := flags.String("db", "", "the cloud's PostgreSQL URL when it keeps its store there: such a store is backed up with pg_dump, not here")
	storeOnly := flags.Bool("store-only", false, "only the store and the small files (keys, identities): leave out recordings/ and resources/, which are large and written once (copy them with rsync)")
	if err := parse(flags, args); err != nil {
		return err
	}
	if *db != "" {
		return usagef("the store is in PostgreSQL: back it up with pg_dump (docs/operations.md, \"PostgreSQL\"); fleetgate backup copies a SQLite data directory")
	}
	if *out == "" {
		return usagef("--out is required")
	}
	dir, err := filepath.Abs(*data)
	if err != nil {
		return err
	}
	outPath, err := filepath.Abs(*out)
	if err != nil {
		return err
	}
	if rel, err := filepath.Rel(dir, outPath); err == nil && filepath.IsLocal(rel) {
		return usagef("--out %s is inside the data directory it backs up", *out)
	}
	if _, err := os.Stat(filepath.Join(dir, storeFileName)); err != nil {
		return fmt.Errorf("no fleetgate data in %s: %w", dir, err)
	}
	// The snapshot is written beside the backup: the data directory's disk may be full.
	work, err := os.MkdirTemp(filepath.Dir(outPath), ".fleetgate-backup-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	snapshot := filepath.Join(work, storeFileName)
	schema, err := store.Snapshot(ctx, filepath.Join(dir, storeFileName), snapshot)
	if err != nil {
		return err
	}
	m := backupManifest{Format: backupFormat, Fleetgate: version(), Created: time.Now().UTC().Truncate(time.Second), Schema: schema}
	tmp := filepath.Join(work, "backup")
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	if err := addFile(tw, &m, snapshot, storeFileName); err != nil {
		return err
	}
	// The store first, then the files: every file the snapshot names existed when it was
	// taken and is still there (recordings and resources are written once, then only
	// deleted), so the copy never names a file it lacks, unless one was deleted meanwhile.
	var left []string
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while we walked: it is not part of the state any more
			}
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil || rel == "." {
			return err
		}
		if d.IsDir() {
			if rel == "demo-agents" {
				// serve --demo's agents: live stores of their own, made anew when missing.
				left = append(left, rel+"/")
				return filepath.SkipDir
			}
			if *storeOnly && slices.Contains(bulkDirs, rel) {
				left = append(left, rel+"/")
				return filepath.SkipDir
			}
			return nil
		}
		if notBackedUp(rel) {
			return nil
		}
		if !d.Type().IsRegular() {
			left = append(left, rel+" (not a regular file)")
			return nil
		}
		err = addFile(tw, &m, path, filepath.ToSlash(rel))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	})
	if err != nil {
		return err
	}
	manifest, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := tw.WriteHeader(&tar.Header{Name: manifestName, Mode: 0o600, Size: int64(len(manifest)), ModTime: m.Created, Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	if _, err := tw.Write(manifest); err != nil {
		return err
	}
	if err := errors.Join(tw.Close(), zw.Close(), f.Sync(), f.Close()); err != nil {
		return fmt.Errorf("writing the backup: %w", err)
	}
	if err := os.Rename(tmp, outPath); err != nil {
		return err
	}
	syncDir(filepath.Dir(outPath))
	var total int64
	for _, file := range m.Files {
		total += file.Size
	}
	fmt.Fprintf(stdout, "backed up %s to %s: the store (schema %d) and %d other files, %s before compression\n",
		dir, outPath, schema, len(m.Files)-1, formatBytes(total))
	for _, l := range left {
		fmt.Fprintf(stdout, "left out %s\n", l)
	}
	return nil
}

// addFile copies one file into the backup and lists it in the manifest. A file that grows
// while it is copied (a recording being written) is copied as it was when opened.
func addFile(tw *tar.Writer, m *backupManifest, path, name string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	hdr := &tar.Header{Name: name, Mode: int64(st.Mode().Perm()), Size: st.Size(), ModTime: st.ModTime(), Typeflag: tar.TypeReg}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	h := sha256.New()
	if n, err := io.CopyN(io.MultiWriter(tw, h), f, st.Size()); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%s shrank from %d to %d bytes while it was copied", path, st.Size(), n)
		}
		return err
	}
	m.Files = append(m.Files, backupFile{Path: name, Size: st.Size(), SHA256: hex.EncodeToString(h.Sum(nil))})
	return nil
}

func runRestore(ctx context.Context, args []string, stdout io.Writer) error {
	flags := newFlagSet("restore")
	from := flags.String("from", "", "the backup file made by fleetgate backup (required)")
	data := flags.String("data", "./fleetgate-data", "data directory to restore into (the gateway that uses it must be stopped)")
	force := flags.Bool("force", false, "restore into a data directory that holds data: it is moved aside, to DIR.before-restore-TIME, not deleted")
	if err := parse(flags, args); err != nil {
		return err
	}
	if *from == "" {
		return usagef("--from is required")
	}
	dir, err := filepath.Abs(*data)
	if err != nil {
		return err
	}
	in, err := os.Open(*from)
	if err != nil {
		return err
	}
	defer in.Close()
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return err
	}
	// Taken before looking inside: a gateway starting now waits for the end of the restore
	// by failing to start, and a running one makes this refuse.
	existed := true
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		existed = false
	}
	release, err := lockDataDir(dir, true)
	if errors.Is(err, errDataDirBusy) {
		return fmt.Errorf("a gateway is running on %s: stop it first (systemctl stop fleetgate-cloud or fleetgate-agent); restore never replaces the files under a running gateway", dir)
	} else if err != nil {
		return err
	}
	defer release()
	restored := false
	if !existed {
		// Made for the lock: a failed restore leaves nothing behind.
		defer func() {
			if !restored {
				os.RemoveAll(dir)
			}
		}()
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	holdsData := slices.ContainsFunc(entries, func(e os.DirEntry) bool { return e.Name() != lockFile })
	if holdsData && !*force {
		return fmt.Errorf("%s holds data: --force moves it aside (to %s.before-restore-TIME) and restores in its place", dir, dir)
	}
	staging, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".restore-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(staging) // gone by then when the restore succeeded
	m, err := unpackBackup(in, staging)
	if err != nil {
		return fmt.Errorf("%s: %w (nothing was restored)", *from, err)
	}
	schema, err := store.CheckFile(ctx, filepath.Join(staging, storeFileName))
	if err != nil {
		return fmt.Errorf("%s: %w (nothing was restored)", *from, err)
	}
	// Run as root for a gateway that runs as its own user (the packages' fleetgate user),
	// the files go to whoever owns the directory they replace, or else its parent.
	owner := parent
	if existed {
		owner = dir
	}
	if err := chownLike(staging, owner); err != nil {
		return err
	}
	aside := ""
	if holdsData {
		aside = fmt.Sprintf("%s.before-restore-%s", dir, time.Now().UTC().Format("20060102T150405Z"))
		if err := os.Rename(dir, aside); err != nil {
			return err
		}
	} else if err := os.RemoveAll(dir); err != nil { // nothing but our lock
		return err
	}
	// A gateway that started in between made the directory anew: the rename fails, and
	// replaces nothing.
	if err := os.Rename(staging, dir); err != nil {
		return fmt.Errorf("putting the restored files in place: %w", err)
	}
	restored = true
	syncDir(parent)
	fmt.Fprintf(stdout, "restored %s (made by fleetgate %s on %s) into %s: the store (schema %d) and %d other files\n",
		*from, m.Fleetgate, m.Created.Format(time.RFC3339), dir, schema, len(m.Files)-1)
	if latest := store.LatestSchema(); schema < latest {
		fmt.Fprintf(stdout, "the gateway migrates the store to schema %d when it starts\n", latest)
	}
	if aside != "" {
		fmt.Fprintf(stdout, "the data that was there is in %s\n", aside)
	}
	return nil
}

// unpackBackup writes a backup's files under dir and checks them against its manifest: the
// same files, sizes and SHA-256 sums, or an error.
func unpackBackup(r io.Reader, dir string) (backupManifest, error) {
	var m backupManifest
	zr, err := gzip.NewReader(r)
	if err != nil {
		return m, fmt.Errorf("not a fleetgate backup: %w", err)
	}
	tr := tar.NewReader(zr)
	got := map[string]backupFile{}
	manifest := false
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return m, fmt.Errorf("reading the backup: %w", err)
		}
		if manifest {
			return m, fmt.Errorf("%s after the manifest: not a backup of fleetgate's", hdr.Name)
		}
		if hdr.Name == manifestName {
			if err := json.NewDecoder(io.LimitReader(tr, 64<<20)).Decode(&m); err != nil {
				return m, fmt.Errorf("its manifest: %w", err)
			}
			manifest = true
			continue
		}
		// Only plain files, only inside the data directory.
		if hdr.Typeflag != tar.TypeReg || !filepath.IsLocal(filepath.FromSlash(hdr.Name)) {
			return m, fmt.Errorf("it holds %q, which is not a file inside a data directory", hdr.Name)
		}
		path := filepath.Join(dir, filepath.FromSlash(hdr.Name))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return m, err
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, fs.FileMode(hdr.Mode).Perm()|0o600)
		if err != nil {
			return m, err
		}
		h := sha256.New()
		n, err := io.Copy(io.MultiWriter(f, h), tr)
		if err = errors.Join(err, f.Sync(), f.Close()); err != nil {
			return m, err
		}
		got[hdr.Name] = backupFile{Path: hdr.Name, Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}
	}
	if !manifest {
		return m, errors.New("it has no manifest: cut short, or not a backup of fleetgate's")
	}
	if m.Format != backupFormat {
		return m, fmt.Errorf("its format is %d; this fleetgate reads %d", m.Format, backupFormat)
	}
	for _, want := range m.Files {
		if have, ok := got[want.Path]; !ok || have != want {
			return m, fmt.Errorf("%s does not match the manifest (damaged backup)", want.Path)
		}
		delete(got, want.Path)
	}
	if len(got) > 0 {
		return m, fmt.Errorf("%s is not in the manifest (damaged backup)", slices.Sorted(maps.Keys(got))[0])
	}
	if _, err := os.Stat(filepath.Join(dir, storeFileName)); err != nil {
		return m, errors.New("it holds no store")
	}
	return m, nil
}

// chownLike gives every file under dir the owner of like, when this process may (root) and
// they differ.
func chownLike(dir, like string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	st, err := os.Stat(like)
	if err != nil {
		return err
	}
	owner, ok := st.Sys().(*syscall.Stat_t)
	if !ok || owner.Uid == 0 && owner.Gid == 0 {
		return nil
	}
	return filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, int(owner.Uid), int(owner.Gid))
	})
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
