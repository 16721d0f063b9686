package quote

import (
	"os"
	"testing"

	"github.com/flopledger/flopledger/pgtest"
)

// TestMain provides the PostgreSQL that the plan cache's test runs on.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
