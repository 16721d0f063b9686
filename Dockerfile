# Multi-stage build: a static binary on a distroless base, run as non-root.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=docker
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/flopledger ./cmd/flopledger

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/flopledger /usr/local/bin/flopledger
USER nonroot:nonroot
EXPOSE 8080
ENV FLOPLEDGER_ADDR=0.0.0.0:8080
ENTRYPOINT ["/usr/local/bin/flopledger"]
CMD ["serve"]
