// The example app: a tiny HTTP server that says which version it was built as, so a test or a user
// can tell which image is serving. It listens on $PORT (default 8000, Berth's application port) and
// exits at once on SIGTERM, so a rollout or a delete never waits out the grace period.
//
// The image holds nothing but this binary, so it also answers four commands (for `kubectl exec` and
// for a container that must fail): `app version` prints the version, `app env NAME` prints an
// environment variable, `app get URL` prints what URL answers (a client with the cluster's DNS,
// bounded to 3 s), `app fail` exits with status 1.
//
// GET /work?ms=N spends N ms of CPU before it answers (load for autoscaling tests).
//
// GET /db and GET /cache check the database and the cache through $DATABASE_URI and $REDIS_URI, the
// connection settings Berth gives the app (backing.go).
//
// At start it logs the value of $BERTH_EXAMPLE_LOG when set (a line for log tests: Berth must mask it
// when it is a secret), and a warning when $BERTH_EXAMPLE_WARN is set. With $BERTH_EXAMPLE_EXIT set
// it exits at once with that status: a container that crashes on a configuration change. An image
// whose version ends in -fail-every-N (or any, with $BERTH_EXAMPLE_FAIL_EVERY=N) answers 500 to every
// Nth request to /: a revision that starts and serves, but badly.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// version is stamped at build time: go build -ldflags "-X main.version=V". $APP_VERSION, when set,
// replaces it: an image built FROM this one with `ENV APP_VERSION=...` (a Dockerfile in a repository
// that Berth builds) answers its own version.
var version = "dev"

func main() {
	if v := os.Getenv("APP_VERSION"); v != "" {
		version = v
	}
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "version":
			fmt.Println(version)
			return
		case "env":
			if len(os.Args) != 3 {
				fmt.Fprintln(os.Stderr, "usage: app env NAME")
				os.Exit(2)
			}
			fmt.Println(os.Getenv(os.Args[2]))
			return
		case "get":
			if len(os.Args) != 3 {
				fmt.Fprintln(os.Stderr, "usage: app get URL")
				os.Exit(2)
			}
			os.Exit(get(os.Args[2]))
		case "probe":
			os.Exit(probe(os.Args[2:]))
		case "fail":
			fmt.Fprintln(os.Stderr, "berth-example: failing on purpose")
			os.Exit(1)
		case "worker":
			work()
			return
		default:
			fmt.Fprintf(os.Stderr, "usage: %s [version|env NAME|get URL|probe SECONDS URL...|fail|worker]\n", os.Args[0])
			os.Exit(2)
		}
	}
	port := os.Getenv("PORT")
	if port == "" {
		port = "8000"
	}
	mux := http.NewServeMux()
	failEvery := failureRate()
	var served atomic.Int64
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		if failEvery > 0 && served.Add(1)%failEvery == 0 {
			http.Error(w, "berth-example failing on purpose", http.StatusInternalServerError)
			return
		}
		fmt.Fprintf(w, "berth-example %s\n", version)
	})
	mux.HandleFunc("GET /ok", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	// GET /work?ms=N keeps a CPU busy for N ms (at most 1000) before it answers: load an autoscaler sees.
	mux.HandleFunc("GET /work", func(w http.ResponseWriter, r *http.Request) {
		ms, err := strconv.Atoi(r.URL.Query().Get("ms"))
		if err != nil || ms < 0 || ms > 1000 {
			http.Error(w, "ms must be a whole number from 0 to 1000", http.StatusBadRequest)
			return
		}
		deadline := time.Now().Add(time.Duration(ms) * time.Millisecond)
		spins := 0
		for time.Now().Before(deadline) {
			spins++
		}
		fmt.Fprintf(w, "worked %d ms (%d spins)\n", ms, spins)
	})
	// GET /wait?ms=N answers after N ms (at most 10000) without using the CPU meanwhile: requests in
	// flight that a CPU autoscaler does not see.
	mux.HandleFunc("GET /wait", func(w http.ResponseWriter, r *http.Request) {
		ms, err := strconv.Atoi(r.URL.Query().Get("ms"))
		if err != nil || ms < 0 || ms > 10000 {
			http.Error(w, "ms must be a whole number from 0 to 10000", http.StatusBadRequest)
			return
		}
		select {
		case <-time.After(time.Duration(ms) * time.Millisecond):
			fmt.Fprintf(w, "waited %d ms\n", ms)
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("GET /db", backingCheck("db", "DATABASE_URI", checkDatabase))
	mux.HandleFunc("GET /cache", backingCheck("cache", "REDIS_URI", checkCache))
	server := &http.Server{Addr: ":" + port, Handler: mux, ReadHeaderTimeout: 5 * time.Second}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = server.Shutdown(shutdown)
	}()
	if value := os.Getenv("BERTH_EXAMPLE_LOG"); value != "" {
		log.Printf("BERTH_EXAMPLE_LOG is %s", value)
	}
	if value := os.Getenv("BERTH_EXAMPLE_WARN"); value != "" {
		log.Printf("WARNING %s", value)
	}
	if value := os.Getenv("BERTH_EXAMPLE_EXIT"); value != "" {
		code, err := strconv.Atoi(value)
		if err != nil {
			code = 1
		}
		log.Printf("exiting with status %d, as BERTH_EXAMPLE_EXIT asks", code)
		os.Exit(code)
	}
	log.Printf("berth-example %s listening on :%s", version, port)
	if err := server.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		log.Fatal(err)
	}
	log.Printf("berth-example %s stopped", version)
}

// work is the queue worker's loop: it asks its broker (REDIS_URI) every second and logs the answer,
// with its role and version, until it is told to stop.
func work() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	log.Printf("berth-example %s worker started (BERTH_ROLE=%s, N_JOBS=%s)", version, os.Getenv("BERTH_ROLE"), os.Getenv("N_JOBS"))
	for {
		result, err := checkCache(os.Getenv("REDIS_URI"))
		if err != nil {
			log.Printf("worker: broker not answering: %v", err)
		} else {
			log.Printf("worker: broker %s", result)
		}
		select {
		case <-ctx.Done():
			log.Printf("berth-example %s worker stopped", version)
			return
		case <-time.After(time.Second):
		}
	}
}

// backingCheck answers "<name> <result>" from a check of the service the environment variable names,
// or 503 with the error (never the URI: it holds a password).
func backingCheck(name, variable string, check func(string) (string, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		uri := os.Getenv(variable)
		if uri == "" {
			http.Error(w, variable+" is not set", http.StatusServiceUnavailable)
			return
		}
		result, err := check(uri)
		if err != nil {
			http.Error(w, fmt.Sprintf("%s: %v", name, err), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintf(w, "%s %s\n", name, result)
	}
}

func get(url string) int {
	client := &http.Client{Timeout: 3 * time.Second}
	response, err := client.Get(url)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer response.Body.Close()
	if _, err := io.Copy(os.Stdout, response.Body); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if response.StatusCode >= 400 {
		fmt.Fprintf(os.Stderr, "%s answered %s\n", url, response.Status)
		return 1
	}
	return 0
}

// failureRate is N when every Nth request to / is to fail: $BERTH_EXAMPLE_FAIL_EVERY, else the version's
// -fail-every-N suffix, else 0 (none).
func failureRate() int64 {
	value := os.Getenv("BERTH_EXAMPLE_FAIL_EVERY")
	if value == "" {
		if i := strings.LastIndex(version, "-fail-every-"); i >= 0 {
			value = version[i+len("-fail-every-"):]
		}
	}
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}
