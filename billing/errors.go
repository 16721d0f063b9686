package billing

import "errors"

// Errors of a plan store (the store wraps them; callers test with errors.Is).
var (
	// ErrPlanNotFound: no plan has that name.
	ErrPlanNotFound = errors.New("plan not found")
	// ErrPlanExists: a plan of that name exists already; add a version instead.
	ErrPlanExists = errors.New("a plan of that name exists already; add a version with POST /v1/plans/{name}/versions")
)
