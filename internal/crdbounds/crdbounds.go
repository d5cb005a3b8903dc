// Package crdbounds reads the bounds the CRDs put on benchwright's objects
// (maxItems, maxLength) from the generated CRDs, so that code that trims a
// status to fit reads them instead of copying them. crds/ is a copy of
// config/crd/bases that make manifests (and so make generate) refreshes.
package crdbounds

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

//go:embed crds/*.yaml
var crds embed.FS

// schema is the part of an OpenAPI v3 schema the lookups read.
type schema struct {
	Properties map[string]*schema `json:"properties,omitempty"`
	Items      *schema            `json:"items,omitempty"`
	MaxItems   *int64             `json:"maxItems,omitempty"`
	MaxLength  *int64             `json:"maxLength,omitempty"`
	Maximum    *float64           `json:"maximum,omitempty"`
	Default    any                `json:"default,omitempty"`
}

// crd is the part of a CustomResourceDefinition the lookups read.
type crd struct {
	Spec struct {
		Names struct {
			Kind string `json:"kind"`
		} `json:"names"`
		Versions []struct {
			Name   string `json:"name"`
			Schema struct {
				OpenAPIV3Schema *schema `json:"openAPIV3Schema"`
			} `json:"schema"`
		} `json:"versions"`
	} `json:"spec"`
}

// schemas are the embedded CRDs' schemas of benchv1's version, by kind.
var schemas = sync.OnceValues(func() (map[string]*schema, error) {
	files, err := fs.Glob(crds, "crds/*.yaml")
	if err != nil {
		return nil, err
	}
	out := map[string]*schema{}
	for _, name := range files {
		data, err := crds.ReadFile(name)
		if err != nil {
			return nil, err
		}
		var c crd
		if err := yaml.Unmarshal(data, &c); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, v := range c.Spec.Versions {
			if v.Name == benchv1.GroupVersion.Version && v.Schema.OpenAPIV3Schema != nil {
				out[c.Spec.Names.Kind] = v.Schema.OpenAPIV3Schema
			}
		}
	}
	return out, nil
})

// lookup is the schema at path in kind's CRD: field names joined by dots, a
// "[]" after a name stepping into the items of that array, as in
// "status.results[].points".
func lookup(kind, path string) (*schema, error) {
	all, err := schemas()
	if err != nil {
		return nil, fmt.Errorf("reading the embedded CRDs: %w", err)
	}
	s := all[kind]
	if s == nil {
		return nil, fmt.Errorf("no CRD of kind %s (version %s) in the embedded CRDs", kind, benchv1.GroupVersion.Version)
	}
	elems := strings.Split(path, ".")
	for i, elem := range elems {
		name, items := strings.CutSuffix(elem, "[]")
		at := strings.Join(append(elems[:i:i], name), ".")
		if s = s.Properties[name]; s == nil {
			return nil, fmt.Errorf("%s's CRD has no field %s", kind, at)
		}
		if items {
			if s = s.Items; s == nil {
				return nil, fmt.Errorf("%s's CRD: %s is not an array", kind, at)
			}
		}
	}
	return s, nil
}

// MaxItems is the maxItems of the array at path (see lookup) in kind's CRD.
func MaxItems(kind, path string) (int, error) {
	s, err := lookup(kind, path)
	if err != nil {
		return 0, err
	}
	if s.MaxItems == nil {
		return 0, fmt.Errorf("%s's CRD has no maxItems on %s", kind, path)
	}
	return int(*s.MaxItems), nil
}

// MaxLength is the maxLength of the string at path (see lookup) in kind's
// CRD.
func MaxLength(kind, path string) (int, error) {
	s, err := lookup(kind, path)
	if err != nil {
		return 0, err
	}
	if s.MaxLength == nil {
		return 0, fmt.Errorf("%s's CRD has no maxLength on %s", kind, path)
	}
	return int(*s.MaxLength), nil
}

// Maximum is the maximum of the number at path (see lookup) in kind's CRD.
func Maximum(kind, path string) (int, error) {
	s, err := lookup(kind, path)
	if err != nil {
		return 0, err
	}
	if s.Maximum == nil {
		return 0, fmt.Errorf("%s's CRD has no maximum on %s", kind, path)
	}
	return int(*s.Maximum), nil
}

// MustMaxItems is MaxItems for a package variable: it panics when the bound
// is missing (a field renamed, a marker dropped), which fails every test of
// the package that reads it.
func MustMaxItems(kind, path string) int {
	return must(MaxItems(kind, path))
}

// MustMaxLength is MaxLength for a package variable: it panics when the
// bound is missing.
func MustMaxLength(kind, path string) int {
	return must(MaxLength(kind, path))
}

func must(n int, err error) int {
	if err != nil {
		panic("crdbounds: " + err.Error() + " (run make generate after changing api/; fix the path if the field moved)")
	}
	return n
}

// RawCRDs are the embedded CustomResourceDefinitions as YAML, by file name
// (config/crd/bases as of the last make generate).
func RawCRDs() (map[string][]byte, error) {
	files, err := fs.Glob(crds, "crds/*.yaml")
	if err != nil {
		return nil, err
	}
	out := make(map[string][]byte, len(files))
	for _, name := range files {
		data, err := crds.ReadFile(name)
		if err != nil {
			return nil, err
		}
		out[strings.TrimPrefix(name, "crds/")] = data
	}
	return out, nil
}
