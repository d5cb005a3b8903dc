package crashpoint

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestReachUnarmedReturnsAtOnce(t *testing.T) {
	dir = t.TempDir()
	t.Cleanup(func() { dir = "" })
	began := time.Now()
	Reach(Collected)
	if d := time.Since(began); d > time.Second {
		t.Errorf("an unarmed point took %s", d)
	}
	if _, err := os.Stat(filepath.Join(dir, "at-"+Collected)); err == nil {
		t.Error("an unarmed point reported itself")
	}
}

func TestReachArmedReportsOnceAndHolds(t *testing.T) {
	dir = t.TempDir()
	t.Cleanup(func() { dir = "" })
	if err := os.WriteFile(filepath.Join(dir, "arm-"+Uploading), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	go Reach(Uploading) // holds: the test would kill it here
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(dir, "at-"+Uploading)); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the armed point did not report itself")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(dir, "arm-"+Uploading)); err == nil {
		t.Error("the point is still armed after it was reached")
	}
	began := time.Now()
	Reach(Uploading) // disarmed: goes on
	if d := time.Since(began); d > time.Second {
		t.Errorf("a disarmed point took %s", d)
	}
}

func TestWriterUnarmedIsTheWriter(t *testing.T) {
	dir = ""
	var b bytes.Buffer
	if w := Writer(&b, Uploading); w != io.Writer(&b) {
		t.Errorf("with the points off, Writer wraps its writer: %T", w)
	}
}

func TestWriterReachesAfterTheFirstWrite(t *testing.T) {
	dir = t.TempDir()
	t.Cleanup(func() { dir = "" })
	if err := os.WriteFile(filepath.Join(dir, "arm-"+Uploading), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w := Writer(&b, Uploading)
	go func() { _, _ = w.Write([]byte("first")) }() // holds once written
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(dir, "at-"+Uploading)); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first write did not reach the point")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
