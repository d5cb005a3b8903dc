// Package validation validates benchwright objects offline exactly as the
// API server does when they are created: it reads the generated CRDs
// (embedded by internal/crdbounds) and runs apiextensions-apiserver's own
// code on an unstructured object, in the API server's order: unknown fields
// (as kubectl's strict field validation reports them), defaulting, the
// OpenAPI schema, metadata, list-type invariants and the CEL
// x-kubernetes-validations rules.
package validation

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	metavalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"

	"github.com/benchwright/benchwright/internal/crdbounds"
)

// DefaultNamespace is the namespace a namespaced object without one is
// validated in, as kubectl would create it.
const DefaultNamespace = "default"

// version is what the API server builds from one served version of a CRD.
type version struct {
	gvk        schema.GroupVersionKind
	namespaced bool
	structural *structuralschema.Structural
	schema     apiservervalidation.SchemaValidator
	cel        *cel.Validator
}

// Validator validates objects of the kinds of a set of CRDs.
type Validator struct {
	versions map[schema.GroupVersionKind]*version
}

var embedded = sync.OnceValues(func() (*Validator, error) {
	raw, err := crdbounds.RawCRDs()
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(raw))
	for name := range raw {
		names = append(names, name)
	}
	sort.Strings(names)
	crds := make([][]byte, 0, len(raw))
	for _, name := range names {
		crds = append(crds, raw[name])
	}
	return New(crds...)
})

// Embedded is the Validator of benchwright's own CRDs (built once).
func Embedded() (*Validator, error) { return embedded() }

// New builds a Validator from CustomResourceDefinitions (YAML or JSON).
func New(crds ...[]byte) (*Validator, error) {
	v := &Validator{versions: map[schema.GroupVersionKind]*version{}}
	for _, data := range crds {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(data, crd); err != nil {
			return nil, fmt.Errorf("decoding a CRD: %w", err)
		}
		for i := range crd.Spec.Versions {
			cv := &crd.Spec.Versions[i]
			if !cv.Served || cv.Schema == nil || cv.Schema.OpenAPIV3Schema == nil {
				continue
			}
			ver, err := newVersion(crd, cv)
			if err != nil {
				return nil, fmt.Errorf("CRD %s version %s: %w", crd.Name, cv.Name, err)
			}
			v.versions[ver.gvk] = ver
		}
	}
	return v, nil
}

// newVersion converts the schema as the API server's CRD handler does.
func newVersion(crd *apiextensionsv1.CustomResourceDefinition, cv *apiextensionsv1.CustomResourceDefinitionVersion) (*version, error) {
	internal := &apiextensionsinternal.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(cv.Schema, internal, nil); err != nil {
		return nil, fmt.Errorf("converting the schema: %w", err)
	}
	s, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, fmt.Errorf("the schema is not structural: %w", err)
	}
	s = s.DeepCopy()
	if err := structuraldefaulting.PruneDefaults(s); err != nil {
		return nil, fmt.Errorf("pruning defaults: %w", err)
	}
	sv, _, err := apiservervalidation.NewSchemaValidator(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, fmt.Errorf("building the schema validator: %w", err)
	}
	return &version{
		gvk:        schema.GroupVersionKind{Group: crd.Spec.Group, Version: cv.Name, Kind: crd.Spec.Names.Kind},
		namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
		structural: s,
		schema:     sv,
		cel:        cel.NewValidator(s, true, celconfig.PerCallLimit),
	}, nil
}

// Kinds are the kinds the Validator knows, sorted.
func (v *Validator) Kinds() []string {
	seen := map[string]bool{}
	var out []string
	for gvk := range v.versions {
		if !seen[gvk.Kind] {
			seen[gvk.Kind] = true
			out = append(out, gvk.Kind)
		}
	}
	sort.Strings(out)
	return out
}

// Knows reports whether the Validator has a schema for the object's
// apiVersion and kind.
func (v *Validator) Knows(obj *unstructured.Unstructured) bool {
	_, ok := v.versions[obj.GroupVersionKind()]
	return ok
}

// Validate prunes, defaults and validates obj (its content is replaced) as the API server does
// on create with strict field validation. Unknown fields are reported alone
// (the API server refuses such an object before it validates it); otherwise
// obj is left defaulted and the errors are those the API server would give.
// A namespaced object without a namespace is validated in DefaultNamespace;
// its namespace stays empty.
func (v *Validator) Validate(ctx context.Context, obj *unstructured.Unstructured) field.ErrorList {
	gvk := obj.GroupVersionKind()
	ver, ok := v.versions[gvk]
	if !ok {
		return field.ErrorList{v.unknownKind(obj)}
	}

	// Encoding as kubectl sends it and decoding as the API server reads
	// it: whole numbers become int64 (sigs.k8s.io/yaml gives float64).
	if err := roundTrip(obj); err != nil {
		return field.ErrorList{field.Invalid(nil, nil, err.Error())}
	}

	// Decoding: unknown fields, pruning, metadata coercion, defaulting.
	unknown, err := coerce(obj, ver)
	if err != nil {
		return field.ErrorList{field.Invalid(field.NewPath("metadata"), nil, err.Error())}
	}
	if len(unknown) > 0 {
		var errs field.ErrorList
		for _, path := range unknown {
			errs = append(errs, UnknownField(path))
		}
		return errs
	}
	structuraldefaulting.Default(obj.Object, ver.structural)

	// Validation: the customresource registry strategy's Validate.
	setNS := ver.namespaced && obj.GetNamespace() == ""
	if setNS {
		obj.SetNamespace(DefaultNamespace)
		defer obj.SetNamespace("")
	}
	var errs field.ErrorList
	errs = append(errs, metavalidation.ValidateObjectMetaAccessor(obj, ver.namespaced, metavalidation.NameIsDNSSubdomain, field.NewPath("metadata"))...)
	errs = append(errs, apiservervalidation.ValidateCustomResource(nil, obj.UnstructuredContent(), ver.schema)...)
	errs = append(errs, schemaobjectmeta.Validate(nil, obj.Object, ver.structural, false)...)
	errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, ver.structural, obj.Object)...)
	if blocking := blockingErr(errs); blocking != nil {
		errs = append(errs, blocking)
	} else {
		celErrs, _ := ver.cel.Validate(ctx, nil, ver.structural, obj.Object, nil, celconfig.RuntimeCELCostBudget)
		errs = append(errs, celErrs...)
	}
	return errs
}

// roundTrip replaces obj's content by its JSON encoding decoded as the API
// server decodes a request body.
func roundTrip(obj *unstructured.Unstructured) error {
	data, err := json.Marshal(obj.Object)
	if err != nil {
		return err
	}
	var m map[string]any
	if err := utiljson.Unmarshal(data, &m); err != nil {
		return err
	}
	obj.Object = m
	return nil
}

// coerce is the API server's unstructuredSchemaCoercer.apply with strict
// field validation: it returns the paths of unknown fields and prunes them.
func coerce(obj *unstructured.Unstructured, ver *version) ([]string, error) {
	kind, apiVersion := obj.GetKind(), obj.GetAPIVersion()
	meta, foundMeta, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(obj.Object, schemaobjectmeta.ObjectMetaOptions{
		ReturnUnknownFieldPaths: true,
	})
	if err != nil {
		return nil, err
	}
	unknown = append(unknown, structuralpruning.PruneWithOptions(obj.Object, ver.structural, true,
		structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj.Object, ver.structural)
	ferr, paths := schemaobjectmeta.CoerceWithOptions(nil, obj.Object, ver.structural, false, schemaobjectmeta.CoerceOptions{
		ReturnUnknownFieldPaths: true,
	})
	if ferr != nil {
		return nil, ferr
	}
	unknown = append(unknown, paths...)
	obj.SetKind(kind)
	obj.SetAPIVersion(apiVersion)
	if foundMeta {
		if err := schemaobjectmeta.SetObjectMeta(obj.Object, meta); err != nil {
			return nil, err
		}
	}
	sort.Strings(unknown)
	return unknown, nil
}

// blockingErr is the registry strategy's hasBlockingErr: CEL rules are not
// evaluated on an object with errors they could trip over.
func blockingErr(errs field.ErrorList) *field.Error {
	for _, err := range errs {
		switch err.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")
		}
	}
	return nil
}

func (v *Validator) unknownKind(obj *unstructured.Unstructured) *field.Error {
	gvk := obj.GroupVersionKind()
	var known []string
	for k := range v.versions {
		if k.Kind == gvk.Kind {
			known = append(known, k.GroupVersion().String())
		}
	}
	if len(known) > 0 {
		sort.Strings(known)
		return field.NotSupported(field.NewPath("apiVersion"), obj.GetAPIVersion(), known)
	}
	return field.NotSupported(field.NewPath("kind"), gvk.Kind, v.Kinds())
}

// UnknownField is the error for a field the schema does not have (the API
// server's strict field validation says: unknown field "spec.x").
func UnknownField(path string) *field.Error {
	return &field.Error{
		Type:     field.ErrorTypeForbidden,
		Field:    path,
		BadValue: "",
		Detail:   fmt.Sprintf("unknown field %q", path),
	}
}

// Format is the errors one per line, each as the API server words it.
func Format(errs field.ErrorList) string {
	lines := make([]string, 0, len(errs))
	for _, err := range errs {
		lines = append(lines, err.Error())
	}
	return strings.Join(lines, "\n")
}
