//! The desktop shell: Tauri builder, plugins, managed state, commands, tray.
//! Thin by design — every decision lives in a library crate that tests
//! without a webview; this crate only wires them to windows and IPC.

pub(crate) mod attention;
mod commands;
mod detached;
mod html_view;
mod navigation;
mod open_files;
mod resumed;
mod state;
mod tray;

use std::path::Path;

use tauri::{Manager, WindowEvent};
use tauri_plugin_dialog::{DialogExt, MessageDialogKind};

pub use state::AppState;

/// Brings the main window back (tray "Open", a second launch).
pub(crate) fn show_main_window(app: &tauri::AppHandle) {
    if let Some(window) = app.get_webview_window("main") {
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
    }
}

/// Where a webview keeps its storage (the layout, recent files): inside
/// Skald's own data directory, so `SKALD_DATA_DIR` separates everything —
/// two data directories never share a chat list's hidden state, and a test
/// run never inherits the last one's.
pub(crate) fn webview_data_dir(data_dir: &Path) -> std::path::PathBuf {
    data_dir.join("webview")
}

/// The main window, built once the data directory is known (the config
/// declares it with `create: false`).
fn open_main_window(app: &tauri::App, data_dir: Option<&Path>) -> tauri::Result<()> {
    let Some(config) = app.config().app.windows.iter().find(|w| w.label == "main") else {
        return Err(tauri::Error::WindowNotFound);
    };
    let mut builder = tauri::WebviewWindowBuilder::from_config(app.handle(), config)?;
    if let Some(dir) = data_dir {
        builder = builder.data_directory(webview_data_dir(dir));
    }
    builder.build()?;
    Ok(())
}

pub fn run() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("SKALD_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        // Colour codes only for a terminal, never into logs and pipes.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stdout()))
        .init();

    let context = tauri::generate_context!();
    // Only a dev build loads the Vite server; a release build has no dev origin.
    let dev_url = if cfg!(feature = "custom-protocol") {
        None
    } else {
        context.config().build.dev_url.clone()
    };
    let result = tauri::Builder::default()
        // Must come first: a second launch focuses the running app instead.
        .plugin(tauri_plugin_single_instance::init(|app, argv, cwd| {
            show_main_window(app);
            // `skald-app FILE` while Skald runs: the file opens in this window.
            open_files::deliver(app, open_files::paths_from_args(&argv, Path::new(&cwd)));
        }))
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_notification::init())
        .plugin(tauri_plugin_opener::init())
        .plugin(navigation::guard(dev_url, &[html_view::SCHEME]))
        .manage(html_view::HtmlRoots::default())
        .register_asynchronous_uri_scheme_protocol(html_view::SCHEME, html_view::handle)
        .setup(|app| {
            // The window first, so WebKit starts loading the UI while the
            // database opens; its storage goes where the database will be.
            // (A data dir that cannot be named fails the load below, with a
            // dialog; the window then keeps WebKit's default storage.)
            let data_dir = skald_store::default_data_dir().ok();
            open_main_window(app, data_dir.as_deref())?;
            let resources = app.path().resource_dir().ok();
            let state = match tauri::async_runtime::block_on(AppState::load(resources)) {
                Ok(state) => state,
                Err(e) => {
                    // A database from a newer Skald, an unwritable data dir:
                    // say so plainly and leave everything untouched.
                    tracing::error!(error = %e, "cannot start");
                    app.dialog()
                        .message(e.to_string())
                        .title("Skald cannot start")
                        .kind(MessageDialogKind::Error)
                        .blocking_show();
                    return Err(e.into());
                }
            };
            state.watch_restart(app.handle().clone());
            state.resume_in_background(app.handle().clone());
            state.deliver_notifications();
            state.run_tasks();
            attention::watch(
                app.handle().clone(),
                state.store.clone(),
                state.approvals.subscribe_changes(),
            );
            attention::watch_moments(app.handle().clone(), &state.sessions);
            commands::mcp::watch_status(app.handle().clone(), state.mcp.clone());
            app.manage(state);
            app.manage(commands::viewer::ViewerState::default());
            app.manage(detached::Detached::default());
            let argv: Vec<String> = std::env::args().collect();
            let cwd = std::env::current_dir().unwrap_or_default();
            app.manage(open_files::LaunchFiles::new(open_files::paths_from_args(
                &argv, &cwd,
            )));
            tray::build(app)?;
            Ok(())
        })
        .on_window_event(|window, event| {
            if let WindowEvent::Destroyed = event {
                detached::closed(window.app_handle(), window.label());
            }
            // Files dropped on the window open in the viewer.
            if let WindowEvent::DragDrop(tauri::DragDropEvent::Drop { paths, .. }) = event {
                let files = paths.iter().map(|p| p.display().to_string()).collect();
                open_files::deliver(window.app_handle(), files);
            }
            // Closing the main window hides it to the tray; Quit is in the tray.
            if let WindowEvent::CloseRequested { api, .. } = event
                && window.label() == "main"
            {
                api.prevent_close();
                let _ = window.hide();
                if let Some(state) = window.try_state::<AppState>() {
                    attention::hidden_to_tray(window.app_handle(), state.store.clone());
                }
            }
        })
        .invoke_handler(tauri::generate_handler![
            commands::tasks::list_tasks,
            commands::tasks::get_task,
            commands::tasks::stop_task,
            commands::tasks::run_task_now,
            commands::tasks::set_task_enabled,
            commands::tasks::delete_task,
            commands::tasks::get_time_zone,
            commands::tasks::set_time_zone,
            commands::tools::list_tools,
            commands::app::app_info,
            commands::app::hide_window,
            commands::app::open_external,
            commands::chat::list_sessions,
            commands::chat::create_session,
            commands::chat::rename_session,
            commands::chat::delete_session,
            commands::chat::search_sessions,
            commands::chat::session_history,
            commands::chat::send_message,
            commands::chat::retry_turn,
            commands::chat::regenerate_answer,
            commands::chat::edit_last_message,
            commands::chat::compact_session,
            commands::chat::stop_turn,
            commands::chat::attach_session,
            commands::chat::resumed_turns,
            commands::companion::get_scratchpad,
            commands::companion::set_scratchpad_entry,
            commands::companion::remove_scratchpad_entry,
            commands::companion::session_todos,
            commands::companion::list_questions,
            commands::companion::answer_question,
            commands::settings::list_providers,
            commands::settings::add_provider,
            commands::settings::set_default_model,
            commands::settings::set_model_reasoning,
            commands::settings::set_model_send_images,
            commands::settings::local_ollama,
            commands::settings::env_endpoints,
            commands::settings::set_env_model,
            commands::settings::edit_provider,
            commands::settings::delete_provider,
            commands::settings::test_provider,
            commands::settings::probe_provider,
            commands::settings::use_provider_model,
            commands::viewer::view_file,
            commands::viewer::viewer_open,
            commands::viewer::viewer_outline,
            commands::viewer::latex_forward,
            commands::viewer::latex_inverse,
            open_files::take_launch_files,
            detached::detach_viewer,
            open_files::pick_file,
            commands::viewer::viewer_bytes,
            commands::viewer::pdf_info,
            commands::viewer::pdf_page,
            commands::viewer::pdf_find,
            commands::viewer::pdf_text,
            commands::viewer::latex_compile,
            commands::viewer::viewer_watch,
            commands::viewer::viewer_unwatch,
            html_view::html_serve,
            commands::approvals::list_pending,
            commands::approvals::approve_call,
            commands::approvals::reject_call,
            commands::approvals::preview_always_allow,
            commands::approvals::always_allow,
            commands::rules::list_groups,
            commands::rules::create_group,
            commands::rules::delete_group,
            commands::rules::list_rules,
            commands::rules::add_rule,
            commands::rules::update_rule,
            commands::rules::delete_rule,
            commands::session_settings::get_run_context,
            commands::session_settings::set_run_context,
            commands::session_settings::add_bypass,
            commands::session_settings::clear_bypasses,
            commands::mcp::mcp_list_servers,
            commands::mcp::mcp_save_server,
            commands::mcp::mcp_remove_server,
            commands::mcp::mcp_set_enabled,
            commands::mcp::mcp_import,
            commands::mcp::mcp_test_server,
            commands::mcp::mcp_server_log,
            commands::mcp::mcp_retry,
            commands::mcp::mcp_sign_in,
            commands::mcp::mcp_sign_out,
            commands::mcp::answer_elicitation,
            commands::mcp::mcp_get_always_on,
            commands::mcp::mcp_set_always_on,
            commands::mcp::mcp_get_allow_sampling,
            commands::mcp::mcp_set_allow_sampling,
            commands::session_settings::list_bypasses,
            commands::session_settings::chat_models,
            commands::session_settings::set_chat_model,
            commands::session_settings::pick_folder,
        ])
        .run(context);
    if let Err(e) = result {
        eprintln!("skald: {e}");
        std::process::exit(1);
    }
}
