from batchkeccak.cli import main

raise SystemExit(main())
