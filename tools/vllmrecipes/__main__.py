from .sample import main

raise SystemExit(main())
