package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/flopledger/flopledger/billing"
	"github.com/flopledger/flopledger/catalog"
	"github.com/flopledger/flopledger/estimator"
)

// modelsView lists the models and the price plans, with the form that
// registers a model.
type modelsView struct {
	page
	Models      []catalog.Model
	Sort        sorter
	Plans       []planView
	Form        registerForm
	FieldErrors map[string]string
	Registered  string
}

// registerForm is the registration form as typed.
type registerForm struct {
	Name       string
	Kind       string // "architecture", "hf_config" or "stand_in"
	Definition string // the JSON of an architecture or a config.json
	StandInFor string
}

// planView is a plan with the version in force today marked.
type planView struct {
	billing.Plan
	InForce billing.Date
}

func (d *dashboard) modelList(c *gin.Context) {
	v := modelsView{Form: registerForm{Kind: "architecture"}}
	if name := c.Query("registered"); name != "" {
		v.Registered = name
		v.Flash = "Model " + name + " registered; its waiting records are being priced."
	}
	d.renderModels(c, http.StatusOK, v)
}

func (d *dashboard) renderModels(c *gin.Context, status int, v modelsView) {
	flash, errs := v.Flash, v.Errors
	v.page = d.pageFor(c, "Models & plans", "/models")
	v.Flash, v.Errors = flash, errs
	var plans []billing.Plan
	err := gather(c.Request.Context(),
		func(ctx context.Context) (err error) {
			v.Models, err = d.s.models.List(ctx)
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
	now := d.s.now()
	for _, p := range plans {
		pv := planView{Plan: p}
		if ver, ok := p.VersionAt(now); ok {
			pv.InForce = ver.EffectiveFrom
		}
		v.Plans = append(v.Plans, pv)
	}
	q := url.Values{}
	for _, k := range []string{"sort", "dir"} {
		if val := c.Query(k); val != "" {
			q.Set(k, val)
		}
	}
	v.Sort = newSorter("/models", q, "models", "name", "asc", map[string]string{
		"name": colText, "source": colText, "params": colNum, "active": colNum, "layers": colNum, "d_model": colNum, "vocab": colNum,
	})
	sortRows(v.Models, v.Sort, map[string]func(a, b catalog.Model) int{
		"name":    byField(func(m catalog.Model) string { return strings.ToLower(m.Name) }),
		"source":  byField(func(m catalog.Model) string { return m.Source }),
		"params":  byField(func(m catalog.Model) int64 { return m.TotalParams }),
		"active":  byField(func(m catalog.Model) int64 { return m.ActiveParams }),
		"layers":  byField(func(m catalog.Model) int64 { return m.Architecture.Layers }),
		"d_model": byField(func(m catalog.Model) int64 { return m.Architecture.DModel }),
		"vocab":   byField(func(m catalog.Model) int64 { return m.Architecture.Vocab }),
	})
	d.render(c, status, "models.html", v)
}

// modelRegister registers a model from the form, as POST /v1/models does,
// and redirects to the list; invalid input re-renders the form (422, or
// 409 for a built-in name).
func (d *dashboard) modelRegister(c *gin.Context) {
	if err := d.parseForm(c); err != nil {
		d.fail(c, err)
		return
	}
	pf := c.Request.PostForm
	f := registerForm{Name: strings.TrimSpace(pf.Get("name")), Kind: pf.Get("kind"),
		Definition: strings.ReplaceAll(pf.Get("definition"), "\r\n", "\n"), StandInFor: strings.TrimSpace(pf.Get("stand_in_for"))}
	reg, ps := f.registration()
	var err error
	var m catalog.Model
	if len(ps) == 0 {
		m, _, err = d.s.models.Register(c.Request.Context(), reg)
		if err == nil {
			if d.s.onModelRegistered != nil {
				d.s.onModelRegistered(m.Name)
			}
			c.Redirect(http.StatusSeeOther, "/models?registered="+url.QueryEscape(m.Name)+"#model-"+url.QueryEscape(m.Name))
			return
		}
	}
	status := http.StatusUnprocessableEntity
	switch {
	case len(ps) > 0:
	case errors.Is(err, catalog.ErrBuiltin):
		status = http.StatusConflict
		ps = []estimator.Problem{{Field: "name", Message: err.Error()}}
	default:
		var ok bool
		if ps, ok = validationProblems(err); !ok {
			d.fail(c, err)
			return
		}
	}
	v := modelsView{Form: f, FieldErrors: map[string]string{}}
	for _, p := range ps {
		field := p.Field
		switch {
		case strings.HasPrefix(field, "architecture") || strings.HasPrefix(field, "hf_config"):
			field = "definition"
		case field != "name" && field != "stand_in_for":
			field = "kind"
		}
		msg := problemText(p)
		if prev, ok := v.FieldErrors[field]; ok {
			v.FieldErrors[field] = prev + "; " + msg
		} else {
			v.FieldErrors[field] = msg
		}
		v.Errors = append(v.Errors, msg)
	}
	d.renderModels(c, status, v)
}

// registration turns the form into the API's registration.
func (f registerForm) registration() (catalog.Registration, []estimator.Problem) {
	r := catalog.Registration{Name: f.Name}
	var ps []estimator.Problem
	def := strings.TrimSpace(f.Definition)
	switch f.Kind {
	case "architecture":
		if def == "" {
			return r, []estimator.Problem{{Field: "architecture", Message: "paste the architecture as JSON"}}
		}
		var a estimator.Architecture
		if err := decodeStrict([]byte(def), &a); err != nil {
			got, ok := validationProblems(err)
			if !ok {
				got = []estimator.Problem{{Message: err.Error()}}
			}
			for _, p := range got {
				ps = append(ps, estimator.Problem{Field: strings.TrimSuffix("architecture."+p.Field, "."), Message: p.Message})
			}
			return r, ps
		}
		r.Architecture = &a
	case "hf_config":
		if !json.Valid([]byte(def)) {
			return r, []estimator.Problem{{Field: "hf_config", Message: "is not valid JSON: paste the model's config.json as it is"}}
		}
		r.HFConfig = json.RawMessage(def)
	case "stand_in":
		r.StandInFor = f.StandInFor
		if f.StandInFor == "" {
			return r, []estimator.Problem{{Field: "stand_in_for", Message: "choose the model whose architecture stands in"}}
		}
	default:
		return r, []estimator.Problem{{Field: "kind", Message: fmt.Sprintf("%q: choose an architecture, a config.json or a stand-in", f.Kind)}}
	}
	return r, nil
}
