package usage

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"sort"

	"github.com/flopledger/flopledger/bloat"
	"github.com/flopledger/flopledger/catalog"
	"github.com/flopledger/flopledger/estimator"
)

// Resolver finds a model's architecture by name (catalog.Registry).
type Resolver interface {
	Resolve(ctx context.Context, name string) (catalog.Model, error)
}

// Row is a validated record ready to store: its FLOPs (nil while the model
// is unknown), the model version they were computed with, its bloat tokens
// (nil when unknown) and the tags it is rolled up under.
type Row struct {
	Record       Record
	PrefillFLOPs *big.Int
	DecodeFLOPs  *big.Int
	ModelVersion int
	RollupTags   map[string]string
}

// Store persists rows; the store package implements it.
type Store interface {
	// InsertRows stores the rows whose id has never been seen, with their
	// rollups, in one transaction, and returns how many were new. Rows
	// whose id exists already (also when another transaction stored it a
	// moment ago) are skipped. Ids within rows are distinct.
	InsertRows(ctx context.Context, rows []Row) (inserted int, err error)
	// UnpricedModels lists the models of records without FLOPs.
	UnpricedModels(ctx context.Context) ([]Unpriced, error)
	// PriceUnpriced takes up to limit unpriced records of model, lets price
	// fill their FLOPs, and stores them with their rollups, in one
	// transaction; it returns how many it priced (0 when none are left).
	PriceUnpriced(ctx context.Context, model string, limit int, price func(rows []Row) error) (int, error)
}

// Unpriced counts the records of a model that is not known yet.
type Unpriced struct {
	Model   string `json:"model"`
	Records int64  `json:"records"`
}

// Item is one decoded element of a batch: a record, or why it could not be
// decoded. Pos says where it was ("line 3"), for messages.
type Item struct {
	Record Record
	Err    error
}

// Rejection is one problem with one item of a batch.
type Rejection struct {
	Index int    `json:"index"`
	ID    string `json:"id,omitempty"`
	Field string `json:"field,omitempty"`
	Error string `json:"error"`
}

// Result is the answer to a batch.
type Result struct {
	Accepted   int         `json:"accepted"`
	Duplicates int         `json:"duplicates"`
	Rejected   []Rejection `json:"rejected"`
}

// Options configure a Service.
type Options struct {
	// GroupTags are the tag keys kept in the daily rollups, so that reports
	// and comparisons can group by them (group_by=tag:NAME).
	GroupTags []string
	Logger    *slog.Logger
}

// Service validates, estimates and stores usage.
type Service struct {
	store     Store
	models    Resolver
	tokens    *bloat.Counter
	groupTags []string
	log       *slog.Logger
}

// NewService returns a Service.
func NewService(s Store, models Resolver, tokens *bloat.Counter, o Options) *Service {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{store: s, models: models, tokens: tokens, groupTags: o.GroupTags, log: o.Logger}
}

// GroupTags returns the tag keys the rollups keep.
func (s *Service) GroupTags() []string { return append([]string(nil), s.groupTags...) }

// Ingest validates every item, estimates the valid ones and stores those
// whose id is new. Invalid items are rejected, each problem named; valid
// ones are kept regardless, unless atomic is set, in which case one
// rejection stores nothing. A repeated id (earlier in the batch, or stored
// before) is a duplicate and is never counted twice. An error is returned
// only when the batch could not be stored at all (then nothing of it was).
func (s *Service) Ingest(ctx context.Context, items []Item, atomic bool) (Result, error) {
	res := Result{Rejected: []Rejection{}}
	rows := make([]Row, 0, len(items))
	seen := make(map[string]bool, len(items))
	models := map[string]*model{}
	for i, it := range items {
		if it.Err != nil {
			res.Rejected = append(res.Rejected, rejections(i, it.Record.ID, it.Err)...)
			continue
		}
		r := it.Record.Normalized()
		if err := r.Validate(); err != nil {
			res.Rejected = append(res.Rejected, rejections(i, r.ID, err)...)
			continue
		}
		if seen[r.ID] {
			res.Duplicates++
			continue
		}
		row, err := s.row(ctx, r, models)
		if err != nil {
			var ve estimator.ValidationError
			if errors.As(err, &ve) {
				res.Rejected = append(res.Rejected, rejections(i, r.ID, err)...)
				continue
			}
			return Result{}, err
		}
		seen[r.ID] = true
		rows = append(rows, row)
	}
	if atomic && len(res.Rejected) > 0 {
		return res, nil
	}
	if len(rows) == 0 {
		return res, nil
	}
	n, err := s.store.InsertRows(ctx, rows)
	if err != nil {
		return Result{}, err
	}
	res.Accepted = n
	res.Duplicates += len(rows) - n
	return res, nil
}

// model is a batch's cache of one resolved model.
type model struct {
	prepared *estimator.Prepared
	version  int
	unknown  bool
}

// row estimates a valid record. An unknown model leaves the FLOPs nil; a
// prompt is analysed for bloat and then dropped from the record.
func (s *Service) row(ctx context.Context, r Record, models map[string]*model) (Row, error) {
	row := Row{Record: r, RollupTags: s.rollupTags(r.Tags)}
	if r.Prompt != nil {
		a, err := s.tokens.Analyze(bloat.O200kBase, *r.Prompt)
		if err != nil {
			return Row{}, err
		}
		b := int64(a.BloatTokens)
		row.Record.BloatTokens = &b
		row.Record.Prompt = nil // analysed, then discarded: never stored
	}
	m, err := s.resolve(ctx, r.Model, models)
	if err != nil || m.unknown {
		return row, err
	}
	p, d, err := m.prepared.Totals(r.shape())
	if err != nil {
		return Row{}, estimator.ValidationError{Problems: estimator.Nest("", err)}
	}
	row.PrefillFLOPs, row.DecodeFLOPs, row.ModelVersion = p, d, m.version
	return row, nil
}

func (s *Service) resolve(ctx context.Context, name string, cache map[string]*model) (*model, error) {
	if m, ok := cache[name]; ok {
		return m, nil
	}
	cm, err := s.models.Resolve(ctx, name)
	var nf *catalog.NotFoundError
	switch {
	case errors.As(err, &nf):
		cache[name] = &model{unknown: true}
		return cache[name], nil
	case err != nil:
		return nil, fmt.Errorf("usage: resolve model %q: %w", name, err)
	}
	p, err := estimator.Prepare(cm.Architecture)
	if err != nil {
		return nil, fmt.Errorf("usage: model %q has an invalid architecture: %w", name, err)
	}
	cache[name] = &model{prepared: p, version: cm.Version}
	return cache[name], nil
}

// rollupTags keeps the configured grouping keys of a record's tags.
func (s *Service) rollupTags(tags map[string]string) map[string]string {
	out := map[string]string{}
	for _, k := range s.groupTags {
		if v, ok := tags[k]; ok {
			out[k] = v
		}
	}
	return out
}

// rejections turns an item's error into one rejection per problem.
func rejections(index int, id string, err error) []Rejection {
	var ve estimator.ValidationError
	if !errors.As(err, &ve) {
		return []Rejection{{Index: index, ID: id, Error: err.Error()}}
	}
	out := make([]Rejection, len(ve.Problems))
	for i, p := range ve.Problems {
		out[i] = Rejection{Index: index, ID: id, Field: p.Field, Error: p.Message}
	}
	return out
}

// Backfill prices the records of every unpriced model that is now known,
// in batches, and returns how many it priced. It is safe to run from
// several instances at once (the store skips rows another is pricing).
func (s *Service) Backfill(ctx context.Context) (int, error) {
	unpriced, err := s.store.UnpricedModels(ctx)
	if err != nil {
		return 0, err
	}
	sort.Slice(unpriced, func(i, j int) bool { return unpriced[i].Model < unpriced[j].Model })
	total := 0
	for _, u := range unpriced {
		priced := 0
		cache := map[string]*model{}
		m, err := s.resolve(ctx, u.Model, cache)
		if err != nil {
			return total, err
		}
		if m.unknown {
			continue
		}
		for {
			n, err := s.store.PriceUnpriced(ctx, u.Model, 5000, func(rows []Row) error {
				for i := range rows {
					r := rows[i].Record
					p, d, err := m.prepared.Totals(r.shape())
					if err != nil {
						return fmt.Errorf("usage: backfill record %q: %w", r.ID, err)
					}
					rows[i].PrefillFLOPs, rows[i].DecodeFLOPs, rows[i].ModelVersion = p, d, m.version
					rows[i].RollupTags = s.rollupTags(r.Tags)
				}
				return nil
			})
			priced += n
			if err != nil {
				return total + priced, err
			}
			if n == 0 {
				break
			}
		}
		total += priced
		s.log.Info("backfilled unpriced records", slog.String("model", u.Model), slog.Int("priced", priced))
	}
	return total, nil
}

// Unpriced lists the models whose records wait for a known architecture.
func (s *Service) Unpriced(ctx context.Context) ([]Unpriced, error) {
	return s.store.UnpricedModels(ctx)
}
