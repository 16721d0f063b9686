package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/budget"
	"github.com/flopledger/flopledger/report"
)

// reportsView lists the stored reports, with the form that makes one.
type reportsView struct {
	page
	Reports []report.Stored
	Made    int64
	// The form, as typed, and its problems by field.
	Month, RequestPlan, FLOPsPlan string
	RequestPlans, FLOPsPlans      []string
	FieldErrors                   map[string]string
}

// reportListLimit is how many reports the page lists, newest first.
const reportListLimit = 200

func (d *dashboard) reportList(c *gin.Context) {
	// The default is the last whole month, as the schedule makes it.
	last := budget.MonthOf(budget.MonthOf(d.s.now()).Start.Time().AddDate(0, -1, 0))
	v := reportsView{Month: last.String(), RequestPlan: d.s.defaultRequestPlan, FLOPsPlan: d.s.defaultFLOPsPlan}
	if id, err := strconv.ParseInt(c.Query("made"), 10, 64); err == nil && id > 0 {
		v.Made = id
		v.Flash = fmt.Sprintf("Report %d made.", id)
	}
	d.renderReports(c, http.StatusOK, v)
}

func (d *dashboard) renderReports(c *gin.Context, status int, v reportsView) {
	flash, errs := v.Flash, v.Errors
	v.page = d.pageFor(c, "Reports", "/reports")
	v.Flash, v.Errors = flash, errs
	var plans []billing.Plan
	err := gather(c.Request.Context(),
		func(ctx context.Context) (err error) {
			v.Reports, err = d.s.archive.Reports(ctx, reportListLimit)
			return err
		},
		func(ctx context.Context) (err error) {
			plans, err = d.s.plans.Plans(ctx)
			return err
		})
	if err != nil {
		d.fail(c, err)
		return
	}
	for _, p := range plans {
		if p.Kind == billing.KindRequest {
			v.RequestPlans = append(v.RequestPlans, p.Name)
		} else {
			v.FLOPsPlans = append(v.FLOPsPlans, p.Name)
		}
	}
	d.render(c, status, "reports.html", v)
}

// reportMake makes a month's report now, as POST /v1/reports does, and
// redirects to the list; invalid input re-renders the form with the
// problems (422).
func (d *dashboard) reportMake(c *gin.Context) {
	if err := d.parseForm(c); err != nil {
		d.fail(c, err)
		return
	}
	f := c.Request.PostForm
	req := report.MakeRequest{Month: strings.TrimSpace(f.Get("month")), RequestPlan: f.Get("request_plan"), FLOPsPlan: f.Get("flops_plan")}
	st, _, err := d.s.maker.Make(c.Request.Context(), req, "monthly", d.s.now())
	if err != nil {
		byField, msgs, ok := problems(err)
		if !ok {
			d.fail(c, err)
			return
		}
		v := reportsView{Month: req.Month, RequestPlan: req.RequestPlan, FLOPsPlan: req.FLOPsPlan, FieldErrors: byField}
		if v.RequestPlan == "" {
			v.RequestPlan = d.s.defaultRequestPlan
		}
		if v.FLOPsPlan == "" {
			v.FLOPsPlan = d.s.defaultFLOPsPlan
		}
		v.Errors = msgs
		d.renderReports(c, http.StatusUnprocessableEntity, v)
		return
	}
	c.Redirect(http.StatusSeeOther, fmt.Sprintf("/reports?made=%d#report-%d", st.ID, st.ID))
}

// parseForm reads a form body, bounded like a JSON body.
func (d *dashboard) parseForm(c *gin.Context) error {
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, d.s.maxBody)
	if err := c.Request.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return &Error{Status: http.StatusRequestEntityTooLarge, Code: "body_too_large",
				Message: fmt.Sprintf("The form is larger than the limit of %d bytes.", tooBig.Limit)}
		}
		return &Error{Status: http.StatusBadRequest, Code: "bad_form", Message: "The form could not be read: " + err.Error()}
	}
	return nil
}
