package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/flopledger/flopledger/deliver"
	"github.com/flopledger/flopledger/notify"
	"github.com/flopledger/flopledger/report"
)

// ReportMaker makes reports (report.Maker).
type ReportMaker interface {
	Make(ctx context.Context, req report.MakeRequest, kind string, now time.Time) (report.Stored, report.Monthly, error)
}

// ReportArchive reads stored reports and their delivery log (the store).
type ReportArchive interface {
	Report(ctx context.Context, id int64) (report.Stored, error)
	Reports(ctx context.Context, limit int) ([]report.Stored, error)
	Deliveries(ctx context.Context, reportID int64) ([]report.Delivery, error)
}

// Notifier sends messages on the configured channels (notify.Notifier).
type Notifier interface {
	Send(ref notify.Ref, m deliver.Message, only []string)
	Test(ctx context.Context, name string) error
	Channels() []notify.ChannelInfo
}

// makeReport makes (or remakes) a month's report and answers with it.
func (s *Server) makeReport(c *gin.Context) {
	var req report.MakeRequest
	if err := s.bindJSON(c, &req); err != nil {
		s.fail(c, err)
		return
	}
	st, _, err := s.maker.Make(c.Request.Context(), req, "monthly", s.now())
	if err != nil {
		s.fail(c, err)
		return
	}
	c.Header("Location", fmt.Sprintf("/v1/reports/%d", st.ID))
	c.JSON(http.StatusCreated, st)
}

func (s *Server) listReports(c *gin.Context) {
	list, err := s.archive.Reports(c.Request.Context(), 200)
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"reports": list})
}

// getReport answers /v1/reports/{id}, {id}.json, {id}.csv or {id}.html.
func (s *Server) getReport(c *gin.Context) {
	raw := c.Param("id")
	format := "json"
	if i := strings.LastIndexByte(raw, '.'); i > 0 {
		raw, format = raw[:i], raw[i+1:]
	}
	st, ok := s.loadReport(c, raw)
	if !ok {
		return
	}
	name := fmt.Sprintf("flopledger-%s-%s", st.Kind, st.PeriodStart.Time().Format("2006-01"))
	switch format {
	case "json":
		c.JSON(http.StatusOK, st)
	case "csv":
		c.Header("Content-Disposition", `attachment; filename="`+name+`.csv"`)
		c.Data(http.StatusOK, "text/csv; charset=utf-8", []byte(st.CSV))
	case "html":
		c.Header("Content-Security-Policy", reportPolicy)
		c.Data(http.StatusOK, "text/html; charset=utf-8", []byte(st.HTML))
	default:
		s.fail(c, &Error{Status: http.StatusNotFound, Code: "not_found", Message: "a report is served as .json, .csv or .html, not ." + format})
	}
}

func (s *Server) loadReport(c *gin.Context, raw string) (report.Stored, bool) {
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		s.fail(c, &Error{Status: http.StatusNotFound, Code: "report_not_found", Message: fmt.Sprintf("%q is not a report id", raw)})
		return report.Stored{}, false
	}
	st, err := s.archive.Report(c.Request.Context(), id)
	if errors.Is(err, report.ErrNotFound) {
		s.fail(c, &Error{Status: http.StatusNotFound, Code: "report_not_found", Message: fmt.Sprintf("no report %d", id)})
		return report.Stored{}, false
	}
	if err != nil {
		s.fail(c, err)
		return report.Stored{}, false
	}
	return st, true
}

func (s *Server) reportDeliveries(c *gin.Context) {
	st, ok := s.loadReport(c, c.Param("id"))
	if !ok {
		return
	}
	list, err := s.archive.Deliveries(c.Request.Context(), st.ID)
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"report_id": st.ID, "deliveries": list})
}

// sendReport delivers a stored report now, on every channel (or those in
// ?channel=a,b), in the background: the delivery log shows the outcome.
func (s *Server) sendReport(c *gin.Context) {
	st, ok := s.loadReport(c, c.Param("id"))
	if !ok {
		return
	}
	var only []string
	if v := c.Query("channel"); v != "" {
		only = strings.Split(v, ",")
	}
	s.notifier.Send(notify.Ref{ReportID: st.ID}, ReportMessage(st, s.linkBase), only)
	c.JSON(http.StatusAccepted, gin.H{"report_id": st.ID, "deliveries": fmt.Sprintf("/v1/reports/%d/deliveries", st.ID)})
}

func (s *Server) listChannels(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{"channels": s.notifier.Channels()})
}

// testChannel sends a test message on one channel and says at once whether
// it arrived, so that a wrong setting shows itself the day it is made.
func (s *Server) testChannel(c *gin.Context) {
	err := s.notifier.Test(c.Request.Context(), c.Param("name"))
	switch {
	case errors.Is(err, notify.ErrUnknownChannel):
		s.fail(c, &Error{Status: http.StatusNotFound, Code: "channel_not_found", Message: err.Error()})
	case err != nil:
		s.fail(c, &Error{Status: http.StatusBadGateway, Code: "channel_failed", Message: "the test message was not delivered: " + err.Error()})
	default:
		c.JSON(http.StatusOK, gin.H{"channel": c.Param("name"), "delivered": true})
	}
}

// ReportMessage is what a report looks like on the channels: the HTML in
// the mail with the CSV attached, and for webhooks the summary as Slack
// "text" plus the headline figures and links.
func ReportMessage(st report.Stored, linkBase string) deliver.Message {
	subject, _, _ := strings.Cut(st.Summary, "\n") // the report's title
	if subject == "" {
		subject = "flopledger report — " + st.PeriodStart.Time().Format("January 2006")
	}
	links := map[string]string{}
	if linkBase != "" {
		base := strings.TrimRight(linkBase, "/") + fmt.Sprintf("/v1/reports/%d", st.ID)
		links = map[string]string{"json": base + ".json", "csv": base + ".csv", "html": base + ".html"}
	}
	return deliver.Message{
		Subject:     subject,
		HTML:        st.HTML,
		Text:        st.Summary,
		Attachments: []deliver.Attachment{{Name: fmt.Sprintf("flopledger-%s.csv", st.PeriodStart.Time().Format("2006-01")), ContentType: "text/csv", Data: []byte(st.CSV)}},
		Webhook: map[string]any{"event": "report", "report_id": st.ID, "kind": st.Kind, "month": st.PeriodStart.Time().Format("2006-01"),
			"period_start": st.PeriodStart, "period_end": st.PeriodEnd,
			"request_plan": st.RequestPlan, "flops_plan": st.FLOPsPlan, "report": st.Body, "links": links},
	}
}
