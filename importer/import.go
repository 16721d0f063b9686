package importer

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/flopledger/flopledger/usage"
)

// Ingester stores a batch of records (usage.Service does).
type Ingester interface {
	Ingest(ctx context.Context, items []usage.Item, atomic bool) (usage.Result, error)
}

// Rejection is one problem with one item of a file.
type Rejection struct {
	Index int    `json:"index"`
	Pos   string `json:"pos"`
	ID    string `json:"id,omitempty"`
	Field string `json:"field,omitempty"`
	Error string `json:"error"`
}

// Summary is what an import did, as the API answers and the CLI prints.
type Summary struct {
	Format     Format      `json:"format"`
	Items      int         `json:"items"`
	Accepted   int         `json:"accepted"`
	Duplicates int         `json:"duplicates"`
	Skipped    int         `json:"skipped"`
	RejectedN  int         `json:"rejected_count"`
	Rejected   []Rejection `json:"rejected"` // the first MaxRejections
}

// ErrIngest marks an error of the store, as opposed to one of the file:
// the file may be fine, and importing it again later is safe.
var ErrIngest = errors.New("storing the records failed")

// MaxRejections bounds the rejections a Summary lists; RejectedN counts all.
const MaxRejections = 1000

// ChunkSize is the number of records stored per transaction: large enough
// to amortise a round trip, small enough that a crash loses little work
// (and a retry of the file redoes nothing: ids are deterministic).
const ChunkSize = 5000

// Import reads r in format f and stores its valid records in chunks of
// ChunkSize, each chunk in one transaction. Bad items are listed with their
// position and do not stop the import. progress, if not nil, is called after
// each chunk. On an error (a file that cannot be read further, or a store
// that fails) the chunks before it stay stored; importing the same file
// again adds nothing twice.
func Import(ctx context.Context, r io.Reader, f Format, o Options, ing Ingester, progress func(Summary)) (Summary, error) {
	s := Summary{Format: f, Rejected: []Rejection{}}
	var chunk []Item
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		batch := make([]usage.Item, len(chunk))
		for i, it := range chunk {
			batch[i] = usage.Item{Record: it.Record}
		}
		res, err := ing.Ingest(ctx, batch, false)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrIngest, err)
		}
		s.Accepted += res.Accepted
		s.Duplicates += res.Duplicates
		for _, rj := range res.Rejected {
			it := chunk[rj.Index]
			s.reject(Rejection{Index: it.Index, Pos: it.Pos, ID: rj.ID, Field: rj.Field, Error: rj.Error})
		}
		chunk = chunk[:0]
		if progress != nil {
			progress(s)
		}
		return nil
	}
	err := Read(r, f, o, func(it Item) error {
		s.Items++
		switch {
		case it.Err != nil:
			var ie *ItemError
			msg := it.Err.Error()
			if errors.As(it.Err, &ie) {
				msg = ie.Err.Error()
			}
			s.reject(Rejection{Index: it.Index, Pos: it.Pos, ID: it.Record.ID, Error: msg})
		case it.Skipped != "":
			s.Skipped++
		default:
			chunk = append(chunk, it)
			if len(chunk) >= ChunkSize {
				return flush()
			}
		}
		return ctx.Err()
	})
	if err != nil && !errors.Is(err, ErrIngest) && ctx.Err() == nil {
		// The file broke off: keep the valid records read before the break.
		if ferr := flush(); ferr != nil {
			return s, ferr
		}
	}
	if err != nil {
		return s, err
	}
	return s, flush()
}

func (s *Summary) reject(r Rejection) {
	s.RejectedN++
	if len(s.Rejected) < MaxRejections {
		s.Rejected = append(s.Rejected, r)
	}
}
