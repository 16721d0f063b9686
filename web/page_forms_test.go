package web

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// TestPageAlertActions acknowledges and resolves the seeded alert through
// the page's forms: each redirects (303) to the list it came from, with its
// filters, and the alert moves. A second acknowledgement is refused on the
// page (409), an unknown alert is a 404 page.
func TestPageAlertActions(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	id := seedDashboard(t, api)
	back := "state=open&workload=rag-search&sort=kind&dir=asc"

	w := postForm(api, "/alerts/"+id+"/ack", back+"&next=https://evil.example/")
	if w.Code != 303 {
		t.Fatalf("ack: %d %s", w.Code, w.Body)
	}
	want := "/alerts?dir=asc&done=" + url.QueryEscape(id+":acknowledged") + "&sort=kind&state=open&workload=rag-search#alert-" + id
	if got := w.Header().Get("Location"); got != want {
		t.Fatalf("ack redirects to %q, want %q", got, want)
	}
	if w := do(api, "GET", "/v1/alerts/"+id, ""); !strings.Contains(w.Body.String(), `"state":"acknowledged"`) {
		t.Fatalf("the alert did not move: %s", w.Body)
	}
	body := getPage(t, api, want, 200)
	mustContain(t, "list after ack", body, "Alert "+id+" acknowledged.", "No alerts in state open for workload rag-search")

	w = postForm(api, "/alerts/"+id+"/ack", back)
	checkHTML(t, w, 409, "ack twice")
	mustContain(t, "ack twice", w.Body.String(), "Alert "+id+" cannot be acknowledged now: it is acknowledged.")

	w = postForm(api, "/alerts/"+id+"/resolve", "")
	if w.Code != 303 || w.Header().Get("Location") != "/alerts?done="+url.QueryEscape(id+":resolved")+"#alert-"+id {
		t.Fatalf("resolve: %d %q", w.Code, w.Header().Get("Location"))
	}
	body = getPage(t, api, "/alerts?state=resolved", 200)
	mustContain(t, "resolved list", body, `id="alert-`+id+`"`, `<span class="badge resolved">resolved</span>`)
	if strings.Contains(body, `action="/alerts/`+id+`/resolve"`) {
		t.Error("a resolved alert still offers Resolve")
	}

	checkHTML(t, postForm(api, "/alerts/99999/ack", ""), 404, "unknown alert")
	checkHTML(t, postForm(api, "/alerts/x/resolve", ""), 404, "bad alert id")
	w = do(api, "GET", "/alerts?state=sleeping", "")
	checkHTML(t, w, 422, "bad state filter")
	mustContain(t, "bad state filter", w.Body.String(), `&#34;sleeping&#34; is not a state`)
}

// TestPageRegisterModel registers a model with the page's form (303, then
// the API knows it) and re-renders the form with the problems on invalid
// input (422) or a built-in name (409).
func TestPageRegisterModel(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	w := postForm(api, "/models", url.Values{"name": {"tiny-page"}, "kind": {"architecture"}, "definition": {tinyArch}}.Encode())
	if w.Code != 303 || w.Header().Get("Location") != "/models?registered=tiny-page#model-tiny-page" {
		t.Fatalf("register: %d %q %s", w.Code, w.Header().Get("Location"), w.Body)
	}
	if m := decodeModel(t, do(api, "GET", "/v1/models/tiny-page", "").Body.Bytes()); m.Source != "architecture" || m.Version != 1 {
		t.Fatalf("registered %+v", m)
	}
	mustContain(t, "models after register", getPage(t, api, "/models?registered=tiny-page", 200),
		"Model tiny-page registered", `<tr id="model-tiny-page" class="highlight">`)

	// A stand-in and a config.json.
	w = postForm(api, "/models", url.Values{"name": {"hosted-x"}, "kind": {"stand_in"}, "stand_in_for": {"llama-3.1-8b"}}.Encode())
	if w.Code != 303 {
		t.Fatalf("stand-in: %d %s", w.Code, w.Body)
	}
	if m := decodeModel(t, do(api, "GET", "/v1/models/hosted-x", "").Body.Bytes()); m.StandInFor != "llama-3.1-8b" {
		t.Fatalf("stand-in %+v", m)
	}

	for _, tc := range []struct {
		name   string
		form   url.Values
		status int
		want   []string
	}{
		{"bad JSON", url.Values{"name": {"bad-json"}, "kind": {"architecture"}, "definition": {`{"d_model": 8,`}}, 422,
			[]string{"not valid JSON", `aria-invalid="true" aria-describedby="definition-error"`, `{&#34;d_model&#34;: 8,</textarea>`}},
		{"invalid architecture", url.Values{"name": {"bad-arch"}, "kind": {"architecture"}, "definition": {`{"d_model": 8, "n_layers": 0, "n_heads": 3, "d_ff": 16, "mlp": "gated", "vocab": 10}`}}, 422,
			[]string{"architecture.n_layers", `id="definition-error"`}},
		{"bad name", url.Values{"name": {"has space"}, "kind": {"architecture"}, "definition": {tinyArch}}, 422,
			[]string{`id="name-error"`, "may hold only letters"}},
		{"config that is not JSON", url.Values{"name": {"hf"}, "kind": {"hf_config"}, "definition": {"nope"}}, 422,
			[]string{"paste the model&#39;s config.json"}},
		{"unknown stand-in", url.Values{"name": {"hosted-y"}, "kind": {"stand_in"}, "stand_in_for": {"lama-3.1-8b"}}, 422,
			[]string{`id="stand_in_for-error"`, "llama-3.1-8b"}},
		{"built-in name", url.Values{"name": {"llama-3.1-8b"}, "kind": {"architecture"}, "definition": {tinyArch}}, 409,
			[]string{"built-in catalog models cannot be replaced"}},
	} {
		w := postForm(api, "/models", tc.form.Encode())
		checkHTML(t, w, tc.status, tc.name)
		mustContain(t, tc.name, w.Body.String(), append(tc.want, `role="alert"`)...)
	}
}

// TestPageMakeReport makes October's report with the page's form: 303 to
// the list, which shows it with its links; a bad month re-renders the form
// with the problem (422).
func TestPageMakeReport(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	seedDashboard(t, api)
	w := postForm(api, "/reports", "month=2026-10")
	if w.Code != 303 || !strings.HasPrefix(w.Header().Get("Location"), "/reports?made=") {
		t.Fatalf("make: %d %q %s", w.Code, w.Header().Get("Location"), w.Body)
	}
	var list struct {
		Reports []struct {
			ID          int64
			PeriodStart string `json:"period_start"`
		}
	}
	if err := json.Unmarshal(do(api, "GET", "/v1/reports", "").Body.Bytes(), &list); err != nil || len(list.Reports) != 1 || list.Reports[0].PeriodStart != "2026-10-01" {
		t.Fatalf("reports: %+v %v", list, err)
	}
	id := fmt.Sprint(list.Reports[0].ID)
	if got := w.Header().Get("Location"); got != "/reports?made="+id+"#report-"+id {
		t.Fatalf("redirect %q", got)
	}
	mustContain(t, "report list", getPage(t, api, "/reports?made="+id, 200), "Report "+id+" made.", "October 2026",
		`<a href="/v1/reports/`+id+`.html">`, `<a href="/v1/reports/`+id+`.csv" download>`, `class="highlight"`)

	for form, want := range map[string]string{
		"month=2026-13":                        `&#34;2026-13&#34; is not a month YYYY-MM`,
		"month=":                               `is not a month YYYY-MM`,
		"month=2026-10&request_plan=nope-plan": `no plan is called &#34;nope-plan&#34;`,
	} {
		w := postForm(api, "/reports", form)
		checkHTML(t, w, 422, form)
		mustContain(t, form, w.Body.String(), want, "aria-invalid")
	}
	if err := json.Unmarshal(do(api, "GET", "/v1/reports", "").Body.Bytes(), &list); err != nil || len(list.Reports) != 1 {
		t.Fatalf("an invalid form made a report: %+v", list)
	}
}
