//go:build ros2

package dds

// SertypeOversize is Reader.sertypeOversize for the tests of package dds_test.
func (r *Reader) SertypeOversize() uint32 { return r.sertypeOversize() }
