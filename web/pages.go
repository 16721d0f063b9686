package web

import "github.com/gin-gonic/gin"

// pages registers the dashboard's HTML pages and its static assets.
func (s *Server) pages(e *gin.Engine) {}
