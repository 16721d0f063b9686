// Package catalog knows every model flopledger can estimate: the built-in
// catalog of published open-weight models (from the estimator) and the
// models users register, stored in PostgreSQL — an architecture of their
// own, a pasted Hugging Face config.json, or a hosted model's name standing
// in for a known architecture.
package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agnivade/levenshtein"

	"github.com/flopledger/flopledger/estimator"
)

// Sources of a model's architecture.
const (
	SourceCatalog      = "catalog"      // built in
	SourceArchitecture = "architecture" // registered with the API's JSON form
	SourceHFConfig     = "hf_config"    // registered with a config.json
	SourceStandIn      = "stand_in"     // a name mapped to another model's architecture
)

// ErrNotFound is wrapped by Store methods when no model has the name.
var ErrNotFound = errors.New("model not found")

// Registered is a user-registered model as the store keeps it.
type Registered struct {
	Name         string
	Source       string
	StandInFor   string
	Architecture estimator.Architecture
	Version      int
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Store keeps registered models. Methods return an error wrapping
// ErrNotFound for a missing name.
type Store interface {
	Model(ctx context.Context, name string) (Registered, error)
	Models(ctx context.Context) ([]Registered, error)
	// SaveModel inserts or replaces a model; the version goes up by one when
	// the architecture changes. created is true for a new name.
	SaveModel(ctx context.Context, m Registered) (saved Registered, created bool, err error)
	DeleteModel(ctx context.Context, name string) error
}

// Model is a model as the API shows it.
type Model struct {
	Name            string                 `json:"name"`
	Source          string                 `json:"source"`
	StandInFor      string                 `json:"stand_in_for,omitempty"`
	HFRepo          string                 `json:"hf_repo,omitempty"`
	Family          string                 `json:"family,omitempty"`
	Architecture    estimator.Architecture `json:"architecture"`
	Version         int                    `json:"version"`
	TotalParams     int64                  `json:"total_params"`
	ActiveParams    int64                  `json:"active_params"`
	PublishedParams int64                  `json:"published_params,omitempty"`
	UpdatedAt       *time.Time             `json:"updated_at,omitempty"`
	// Prepared is the validated architecture, ready to estimate; set for
	// built-in models, which are prepared once (registered ones are
	// prepared per use).
	Prepared *estimator.Prepared `json:"-"`
}

// NotFoundError names the model asked for and the closest known names.
type NotFoundError struct {
	Name        string
	Suggestions []string
}

func (e *NotFoundError) Error() string {
	msg := fmt.Sprintf("unknown model %q", e.Name)
	if len(e.Suggestions) > 0 {
		msg += "; closest known: " + strings.Join(e.Suggestions, ", ")
	}
	return msg
}

func (e *NotFoundError) Unwrap() error { return ErrNotFound }

// ErrBuiltin is returned when a request would change a built-in model.
var ErrBuiltin = errors.New("built-in catalog models cannot be replaced or deleted; register under another name")

// Registry resolves model names against the built-in catalog and the store.
type Registry struct {
	store Store
	// builtin indexes the catalog by lower-cased name, repository id and
	// alias, built once: resolving is on the path of every estimate.
	builtin map[string]Model
	ordered []Model
}

// New returns a registry over s. A nil store gives the built-in catalog
// alone, for tools that run without a database.
func New(s Store) *Registry {
	g := &Registry{store: s, builtin: map[string]Model{}}
	for _, m := range estimator.Catalog() {
		cm := fromCatalog(m)
		cm.Prepared, _ = estimator.Prepare(cm.Architecture) // the catalog is valid: its tests say so
		g.ordered = append(g.ordered, cm)
		for _, k := range append([]string{m.Name, m.HFRepo}, m.Aliases...) {
			g.builtin[strings.ToLower(k)] = cm
		}
	}
	return g
}

// lookupBuiltin finds a catalog model as estimator.Lookup does. The
// returned Model shares its MoE pointer with the index: callers treat
// models as values and never write through it.
func (g *Registry) lookupBuiltin(name string) (Model, bool) {
	m, ok := g.builtin[strings.ToLower(strings.TrimSpace(name))]
	return m, ok
}

func fromCatalog(m estimator.Model) Model {
	total, active := m.Architecture.Params()
	return Model{
		Name: m.Name, Source: SourceCatalog, HFRepo: m.HFRepo, Family: m.Family,
		Architecture: m.Architecture.Normalized(), Version: 1,
		TotalParams: total, ActiveParams: active, PublishedParams: m.PublishedParams,
	}
}

func fromRegistered(r Registered) Model {
	total, active := r.Architecture.Params()
	upd := r.UpdatedAt
	return Model{
		Name: r.Name, Source: r.Source, StandInFor: r.StandInFor,
		Architecture: r.Architecture, Version: r.Version,
		TotalParams: total, ActiveParams: active, UpdatedAt: &upd,
	}
}

// Resolve finds a model by name: built-in names (and their Hugging Face
// repository ids) first, then registered names. A miss is a *NotFoundError
// with the closest known names.
func (g *Registry) Resolve(ctx context.Context, name string) (Model, error) {
	if m, ok := g.lookupBuiltin(name); ok {
		return m, nil
	}
	if g.store == nil {
		return Model{}, g.notFound(ctx, name)
	}
	r, err := g.store.Model(ctx, name)
	if err == nil {
		return fromRegistered(r), nil
	}
	if !errors.Is(err, ErrNotFound) {
		return Model{}, err
	}
	return Model{}, g.notFound(ctx, name)
}

func (g *Registry) notFound(ctx context.Context, name string) error {
	all, err := g.List(ctx)
	if err != nil {
		return err
	}
	names := make([]string, len(all))
	for i, m := range all {
		names[i] = m.Name
	}
	return &NotFoundError{Name: name, Suggestions: closest(name, names, 3)}
}

// List returns the built-in models, then the registered ones, each by name.
func (g *Registry) List(ctx context.Context) ([]Model, error) {
	out := slices.Clone(g.ordered)
	if g.store == nil {
		return out, nil
	}
	regs, err := g.store.Models(ctx)
	if err != nil {
		return nil, err
	}
	for _, r := range regs {
		out = append(out, fromRegistered(r))
	}
	return out, nil
}

// Registration is the body of POST /v1/models: a name and exactly one of
// architecture, hf_config or stand_in_for.
type Registration struct {
	Name         string                  `json:"name"`
	Architecture *estimator.Architecture `json:"architecture,omitempty"`
	HFConfig     json.RawMessage         `json:"hf_config,omitempty"`
	StandInFor   string                  `json:"stand_in_for,omitempty"`
}

// MaxNameLength bounds a model name; names appear in URLs and reports.
const MaxNameLength = 200

// Validate reports every problem with the registration at once; it does
// not look the stand-in up (Register does).
func (r Registration) Validate() error {
	var ps []estimator.Problem
	add := func(f, m string) { ps = append(ps, estimator.Problem{Field: f, Message: m}) }
	switch {
	case r.Name == "":
		add("name", "is required")
	case len(r.Name) > MaxNameLength:
		add("name", fmt.Sprintf("must be at most %d bytes", MaxNameLength))
	case !validName(r.Name):
		add("name", "may hold only letters, digits and . _ - : @ (no spaces or slashes: it appears in URLs)")
	}
	given := 0
	if r.Architecture != nil {
		given++
		if err := r.Architecture.Validate(); err != nil {
			ps = append(ps, estimator.Nest("architecture", err)...)
		}
	}
	if len(r.HFConfig) > 0 && string(r.HFConfig) != "null" {
		given++
		if _, err := estimator.ParseHFConfig(r.HFConfig); err != nil {
			ps = append(ps, estimator.Nest("hf_config", err)...)
		}
	}
	if r.StandInFor != "" {
		given++
	}
	if given != 1 {
		add("", "give exactly one of architecture, hf_config or stand_in_for")
	}
	if len(ps) > 0 {
		return estimator.ValidationError{Problems: ps}
	}
	return nil
}

func validName(s string) bool {
	for _, r := range s {
		ok := r == '.' || r == '_' || r == '-' || r == ':' || r == '@' ||
			(r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !ok {
			return false
		}
	}
	return true
}

// Register stores a user model, replacing one of the same name (its version
// goes up when the architecture changes). A stand-in copies the named
// model's architecture as it is now and remembers where it came from.
func (g *Registry) Register(ctx context.Context, r Registration) (Model, bool, error) {
	if err := r.Validate(); err != nil {
		return Model{}, false, err
	}
	if _, ok := g.lookupBuiltin(r.Name); ok {
		return Model{}, false, ErrBuiltin
	}
	reg := Registered{Name: r.Name}
	switch {
	case r.Architecture != nil:
		reg.Source, reg.Architecture = SourceArchitecture, r.Architecture.Normalized()
	case r.StandInFor != "":
		target, err := g.Resolve(ctx, r.StandInFor)
		if err != nil {
			var nf *NotFoundError
			if errors.As(err, &nf) {
				return Model{}, false, estimator.ValidationError{Problems: []estimator.Problem{{Field: "stand_in_for", Message: nf.Error()}}}
			}
			return Model{}, false, err
		}
		reg.Source, reg.StandInFor, reg.Architecture = SourceStandIn, target.Name, target.Architecture
	default:
		a, _ := estimator.ParseHFConfig(r.HFConfig) // validated above
		reg.Source, reg.Architecture = SourceHFConfig, a.Normalized()
	}
	saved, created, err := g.store.SaveModel(ctx, reg)
	if err != nil {
		return Model{}, false, err
	}
	return fromRegistered(saved), created, nil
}

// Delete removes a registered model. Built-in models cannot be deleted.
func (g *Registry) Delete(ctx context.Context, name string) error {
	if _, ok := g.lookupBuiltin(name); ok {
		return ErrBuiltin
	}
	err := g.store.DeleteModel(ctx, name)
	if errors.Is(err, ErrNotFound) {
		return g.notFound(ctx, name)
	}
	return err
}

// closest returns up to n names nearest to name by edit distance (case
// folded), nearest first; names further than half their length are left
// out, so that a wild guess suggests nothing rather than noise.
func closest(name string, names []string, n int) []string {
	type cand struct {
		name string
		d    int
	}
	q := strings.ToLower(name)
	var cs []cand
	for _, c := range names {
		lc := strings.ToLower(c)
		d := levenshtein.ComputeDistance(q, lc)
		if strings.Contains(lc, q) || strings.Contains(q, lc) {
			d = min(d, 1+abs(len(lc)-len(q))/4) // a prefix or fragment is close
		}
		if d <= max(len(c), len(q))/2 {
			cs = append(cs, cand{c, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d || (cs[i].d == cs[j].d && cs[i].name < cs[j].name) })
	var out []string
	for i := 0; i < len(cs) && i < n; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
