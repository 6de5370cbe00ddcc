package hoststat

import "syscall"

func diskUsage(path string) (used, total uint64, err error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return 0, 0, err
	}
	bsize := uint64(st.Bsize)
	return (st.Blocks - st.Bfree) * bsize, st.Blocks * bsize, nil
}
