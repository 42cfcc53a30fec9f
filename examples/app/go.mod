module berth.dev/examples/app

go 1.26.0
