// Package demo seeds an empty database with a realistic 90-day data set, so
// that `flopledger serve --demo` shows a newcomer every page alive: six
// workloads of different shapes on several catalog models and one hosted
// model registered as a stand-in, a request plan with a mid-period price
// cut, a FLOPs tariff near the revenue-neutral price (so that some workloads
// win and some lose), budgets in every state, a whitespace-bloat episode, a
// runaway agent loop, and a few records of a model nobody registered.
//
// The data set is deterministic: a fixed PCG seed and integer arithmetic
// only (a float expression may be fused differently on another CPU), so
// two runs with the same Now store the same ids and the same figures.
// Requests are bucketed (one record per workload, customer and model per
// 15 to 60 minutes, as provider exports give them): about 127,000 records
// stand for 68 million requests.
//
// Seed writes through the same services as the API (plans, the model
// catalog, usage ingestion, budgets, alert evaluation), so every figure
// the dashboard shows is computed the way real traffic's would be.
package demo
