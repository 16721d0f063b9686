package store

import "github.com/prometheus/client_golang/prometheus"

// PoolCollector exports the pool's figures to Prometheus at scrape time.
type PoolCollector struct {
	s                                    *Store
	total, idle, acquired, max, acquires *prometheus.Desc
	waitDur, emptyAcq                    *prometheus.Desc
}

// NewPoolCollector returns a collector for s's connection pool.
func NewPoolCollector(s *Store) *PoolCollector {
	d := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc("flopledger_db_pool_"+name, help, nil, nil)
	}
	return &PoolCollector{
		s:        s,
		total:    d("connections", "Open connections in the pool."),
		idle:     d("idle_connections", "Idle connections in the pool."),
		acquired: d("acquired_connections", "Connections currently in use."),
		max:      d("max_connections", "Largest size the pool may grow to."),
		acquires: d("acquires_total", "Connections acquired from the pool."),
		emptyAcq: d("empty_acquires_total", "Acquires that had to wait for a connection."),
		waitDur:  d("acquire_wait_seconds_total", "Time spent waiting for a connection."),
	}
}

// Describe implements prometheus.Collector.
func (c *PoolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.total, c.idle, c.acquired, c.max, c.acquires, c.emptyAcq, c.waitDur} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *PoolCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.s.PoolStat()
	g := func(d *prometheus.Desc, v float64) { ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v) }
	k := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v)
	}
	g(c.total, float64(st.TotalConns()))
	g(c.idle, float64(st.IdleConns()))
	g(c.acquired, float64(st.AcquiredConns()))
	g(c.max, float64(st.MaxConns()))
	k(c.acquires, float64(st.AcquireCount()))
	k(c.emptyAcq, float64(st.EmptyAcquireCount()))
	k(c.waitDur, st.AcquireDuration().Seconds())
}
