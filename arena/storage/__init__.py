"""arena's storage: what must survive a crash.  The league database lives here
(:mod:`arena.storage.league_db`); run folders and their journal are still in
:mod:`arena.tournaments.run_folder`."""
