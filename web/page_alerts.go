package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/flopledger/flopledger/alert"
)

// alertsView lists alerts, filtered by state and workload.
type alertsView struct {
	page
	State, Workload string
	StateError      string
	States          []string
	Alerts          []alert.Alert
	Sort            sorter
	// Back is the filtered list's query, which the action forms carry so
	// that their redirect lands on the same list.
	Back []hiddenField
}

// alertFilterKeys are the query parameters of the list that the action
// forms carry back.
var alertFilterKeys = []string{"state", "workload", "sort", "dir"}

func (d *dashboard) alertList(c *gin.Context) {
	d.renderAlerts(c, http.StatusOK, "", c.Request.URL.Query())
}

// renderAlerts shows the list filtered by q; problem, when set, is shown
// at the top (a refused action) with status.
func (d *dashboard) renderAlerts(c *gin.Context, status int, problem string, q url.Values) {
	v := alertsView{page: d.pageFor(c, "Alerts", "/alerts"), State: q.Get("state"), Workload: strings.TrimSpace(q.Get("workload")),
		States: []string{string(alert.Open), string(alert.Acknowledged), string(alert.Resolved)}}
	if problem != "" {
		v.Errors = append(v.Errors, problem)
	}
	v.Flash = v.flash(q)
	for _, k := range alertFilterKeys {
		if val := q.Get(k); val != "" {
			v.Back = append(v.Back, hiddenField{k, val})
		}
	}
	state := v.State
	if state != "" && !alert.State(state).Valid() {
		v.StateError = fmt.Sprintf("%q is not a state: choose open, acknowledged or resolved", state)
		v.Errors = append(v.Errors, "state: "+v.StateError)
		status, state = http.StatusUnprocessableEntity, ""
	}
	list, err := d.s.alerts.List(c.Request.Context(), state, v.Workload)
	if err != nil {
		d.fail(c, err)
		return
	}
	v.Alerts = list
	// The sort reads the list's own query, which on a refused action is
	// the form's copy of it.
	sq := url.Values{}
	for _, k := range alertFilterKeys {
		if val := q.Get(k); val != "" {
			sq.Set(k, val)
		}
	}
	v.Sort = newSorter("/alerts", sq, "alerts", "opened", "desc", map[string]string{
		"id": colNum, "workload": colText, "kind": colText, "state": colText, "opened": colDesc, "window": colDesc,
	})
	sortRows(v.Alerts, v.Sort, map[string]func(a, b alert.Alert) int{
		"id":       byField(func(a alert.Alert) int64 { return a.ID }),
		"workload": byField(func(a alert.Alert) string { return a.Workload }),
		"kind":     byField(func(a alert.Alert) string { return string(a.Kind) }),
		"state":    byField(func(a alert.Alert) string { return string(a.State) }),
		"opened":   func(a, b alert.Alert) int { return a.OpenedAt.Compare(b.OpenedAt) },
		"window":   func(a, b alert.Alert) int { return a.WindowStart.Compare(b.WindowStart) },
	})
	d.render(c, status, "alerts.html", v)
}

func (d *dashboard) alertAck(c *gin.Context) {
	d.moveAlert(c, "acknowledged", d.s.alerts.Acknowledge)
}

func (d *dashboard) alertResolve(c *gin.Context) {
	d.moveAlert(c, "resolved", d.s.alerts.Resolve)
}

// moveAlert acknowledges or resolves an alert from a form, then redirects
// (303) to the list the form was on, built from the filter fields alone
// (never from a URL the form sends, so the redirect cannot leave the site).
func (d *dashboard) moveAlert(c *gin.Context, done string, move func(ctx context.Context, id int64, now time.Time) (alert.Alert, error)) {
	if err := d.parseForm(c); err != nil {
		d.fail(c, err)
		return
	}
	back := url.Values{}
	for _, k := range alertFilterKeys {
		if v := strings.TrimSpace(c.Request.PostForm.Get(k)); v != "" {
			back.Set(k, v)
		}
	}
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		d.failWith(c, http.StatusNotFound, "There is no alert "+c.Param("id")+".")
		return
	}
	a, err := move(c.Request.Context(), id, d.s.now())
	switch {
	case errors.Is(err, alert.ErrNotFound):
		d.failWith(c, http.StatusNotFound, fmt.Sprintf("There is no alert %d.", id))
	case errors.Is(err, alert.ErrState):
		cur, gerr := d.s.alerts.Get(c.Request.Context(), id)
		msg := fmt.Sprintf("Alert %d cannot be %s now", id, done)
		if gerr == nil {
			msg += fmt.Sprintf(": it is %s", cur.State)
		}
		d.renderAlerts(c, http.StatusConflict, msg+".", back)
	case err != nil:
		d.fail(c, err)
	default:
		back.Set("done", fmt.Sprintf("%d:%s", a.ID, done))
		c.Redirect(http.StatusSeeOther, "/alerts?"+back.Encode()+fmt.Sprintf("#alert-%d", a.ID))
	}
}

// Flash tells what the redirect after an action did (?done=ID:STATE).
func (v alertsView) flash(q url.Values) string {
	id, st, ok := strings.Cut(q.Get("done"), ":")
	if !ok || (st != "acknowledged" && st != "resolved") {
		return ""
	}
	if _, err := strconv.ParseInt(id, 10, 64); err != nil {
		return ""
	}
	return "Alert " + id + " " + st + "."
}
