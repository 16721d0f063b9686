package demo

// The models of the data set. StandIn is a hosted model whose architecture
// is unpublished: Seed registers it as standing in for StandInFor. Unpriced
// is registered by nobody, so its records stay unpriced and the dashboard's
// "unpriced" count shows.
const (
	StandIn    = "claude-3-5-sonnet-20241022"
	StandInFor = "llama-3.1-405b"
	Unpriced   = "gpt-4o-2024-08-06"
)

// weighted is a name with a relative weight.
type weighted struct {
	name   string
	weight int64
}

// share is a model's share of a workload's requests, in per mille, moving
// linearly from first (the first day) to last (the last day): a team
// moving traffic from one model to another.
type share struct {
	model       string
	first, last int64
}

// workload is one kind of traffic. Volumes are requests per weekday at the
// end of the period; sizes are means per request, in tokens.
type workload struct {
	name, team string
	customers  []weighted
	models     []share
	daily      int64     // requests on a weekday at the end of the period
	growth     int64     // the first day's volume, per mille of the last day's
	weekly     [7]int64  // per mille of daily, Sunday first
	hourly     [24]int64 // relative weights of the UTC hours
	minutes    int       // bucket length: one record per customer and model every so many minutes
	in, out    int64     // mean input and output tokens per request
	cached     int64     // per mille of the input served from a prefix cache
	bloat      int64     // per mille of the input that is redundant whitespace; -1: prompts not analysed
}

// Daily shapes in UTC: office hours of Europe and the Americas, consumer
// traffic that runs into the evening, and a nightly batch window.
var (
	office   = [24]int64{3, 2, 2, 2, 2, 3, 6, 12, 20, 26, 30, 32, 32, 34, 36, 36, 32, 26, 20, 14, 10, 7, 5, 4}
	consumer = [24]int64{8, 6, 5, 4, 4, 5, 7, 10, 14, 17, 19, 21, 22, 23, 24, 25, 26, 26, 25, 23, 20, 17, 13, 10}
	nightly  = [24]int64{90, 100, 100, 100, 95, 80, 10, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 6, 40}
)

// The workloads, in the order the generator walks them. Their shapes
// follow MISSION.md: short prompts and long answers (support chat), long
// prompts and short answers (code assistant, RAG, summarisation), cached
// batch work, and an agent whose context grows with every step.
var workloads = []workload{
	{
		name: "support-chat", team: "care",
		customers: []weighted{{"acme", 40}, {"globex", 25}, {"initech", 20}, {"umbrella", 15}},
		// The small model takes over escalations as it gets tuned.
		models: []share{{"llama-3.1-8b", 750, 880}, {"llama-3.1-70b", 250, 120}},
		daily:  180_000, growth: 700,
		weekly: [7]int64{700, 1000, 1000, 1000, 1000, 980, 750}, hourly: consumer, minutes: 15,
		in: 900, out: 350, cached: 0, bloat: 15,
	},
	{
		name: "code-assistant", team: "dev",
		// Internal teams are the customers of an internal tool.
		customers: []weighted{{"payments", 30}, {"mobile", 25}, {"platform", 25}, {"web", 20}},
		// A trial of the hosted model grows into a quarter of the traffic.
		models: []share{{"qwen2.5-72b", 950, 800}, {StandIn, 50, 200}},
		daily:  16_000, growth: 800,
		weekly: [7]int64{150, 1000, 1000, 1000, 1000, 900, 200}, hourly: office, minutes: 60,
		in: 24_000, out: 250, cached: 650, bloat: -1,
	},
	{
		name: "rag-search", team: "search",
		customers: []weighted{{"acme", 30}, {"globex", 30}, {"hooli", 25}, {"stark", 15}},
		models:    []share{{"llama-3.1-70b", 1000, 1000}},
		daily:     25_000, growth: 850,
		weekly: [7]int64{500, 1000, 1000, 1000, 1000, 950, 550}, hourly: office, minutes: 30,
		in: 4000, out: 400, cached: 0, bloat: 12,
	},
	{
		name: "summarisation", team: "docs",
		customers: []weighted{{"acme", 50}, {"globex", 30}, {"stark", 20}},
		models:    []share{{"mixtral-8x7b", 1000, 1000}},
		daily:     12_000, growth: 900,
		weekly: [7]int64{400, 1000, 1000, 1000, 1000, 950, 450}, hourly: office, minutes: 60,
		in: 24_000, out: 600, cached: 0, bloat: 20,
	},
	{
		name: "batch-classification", team: "ops",
		customers: []weighted{{"acme", 50}, {"globex", 30}, {"initech", 20}},
		models:    []share{{"llama-3.2-3b", 1000, 1000}},
		daily:     600_000, growth: 900,
		weekly: [7]int64{1000, 1000, 1000, 1000, 1000, 1000, 1000}, hourly: nightly, minutes: 60,
		in: 800, out: 5, cached: 750, bloat: -1,
	},
	{
		name: "agent", team: "ai",
		customers: []weighted{{"acme", 40}, {"initech", 35}, {"wayne", 25}},
		models:    []share{{"qwen3-30b-a3b", 1000, 1000}},
		// Launched recently: a quarter of today's volume on the first day.
		daily: 9000, growth: 250,
		weekly: [7]int64{600, 1000, 1000, 1000, 1000, 950, 650}, hourly: office, minutes: 60,
		in: 32_000, out: 1200, cached: 800, bloat: -1,
	},
}

// speed is how fast a model serves, for latency and time to first token:
// a fixed overhead, prefill throughput and the time per generated token.
type speed struct {
	overheadMS      int64
	prefillTokPerMS int64
	msPerToken      int64
}

var speeds = map[string]speed{
	"llama-3.2-3b":  {40, 40, 5},
	"llama-3.1-8b":  {60, 25, 9},
	"qwen3-30b-a3b": {80, 20, 11},
	"mixtral-8x7b":  {90, 12, 16},
	"llama-3.1-70b": {150, 5, 30},
	"qwen2.5-72b":   {160, 5, 32},
	StandIn:         {400, 8, 18},
	Unpriced:        {350, 10, 14},
}
